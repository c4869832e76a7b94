import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import { workerRevokedChannel } from "../Auth/WorkerTokenTrust.js"
import type { WorkerIdentity } from "../Contract/Security.js"
import { Notifications } from "../Db/Notifications.js"

/** One open channel: its worker, the runs it may still be handed, and how it is closed. */
export interface Channel {
  /** Names the connection to the rpc handlers (see `Http.ts`); random, so no other connection can claim it. */
  readonly key: string
  readonly worker: WorkerIdentity
  /** Runs the worker may still be pushed (its free slots). */
  credit: number
  /** Grants so far: a wait that read it before looking wakes at once if one came since. */
  grants: number
  /**
   * Called (once, then cleared) on the next grant: how a connection with no
   * slots left waits for more without a fiber of its own (see `Pushes`).
   */
  onGrant: (() => void) | undefined
  /** Set once the connection is closed (revoked, or replaced by the worker's newer connection). */
  closed: boolean
  /**
   * Ends the connection; the route sets it once the connection runs (see
   * `Http.ts`). A callback rather than something the connection waits on:
   * waiting on two things at once takes a fiber each, held for the
   * connection's life.
   */
  end: () => void
}

/**
 * The channels open on this instance: at most one per worker (a newer
 * connection closes the older, so a worker reconnecting through a half-open
 * connection is not refused), closed when the worker is revoked on any
 * instance (the same NOTIFY that makes every instance forget its token).
 */
export class Connections extends Effect.Service<Connections>()("WorkerChannel/Connections", {
  scoped: Effect.gen(function*() {
    const notifications = yield* Notifications
    const byKey = new Map<string, Channel>()
    const byWorker = new Map<string, Channel>()

    const remove = (channel: Channel) => {
      byKey.delete(channel.key)
      if (byWorker.get(channel.worker.workerId) === channel) byWorker.delete(channel.worker.workerId)
    }
    const close = (channel: Channel) => {
      remove(channel)
      channel.closed = true
      channel.end()
    }

    /** Registers a connection for the enclosing scope, closing the worker's older one. */
    const open = (worker: WorkerIdentity): Effect.Effect<Channel, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const older = byWorker.get(worker.workerId)
          if (older !== undefined) close(older)
          const channel: Channel = { key: randomUUID(), worker, credit: 0, grants: 0, onGrant: undefined, closed: false, end: () => {} }
          byKey.set(channel.key, channel)
          byWorker.set(worker.workerId, channel)
          return channel
        }),
        (channel) => Effect.sync(() => remove(channel))
      )

    const find = (key: string | undefined): Channel | undefined => key === undefined ? undefined : byKey.get(key)

    /**
     * Raises the runs the channel may be pushed (`Runs` and `Slots` both add:
     * a connection starts at 0, so their order on the wire does not matter).
     */
    const grant = (channel: Channel, slots: number): void => {
      channel.credit = channel.credit + slots
      channel.grants++
      const waiting = channel.onGrant
      channel.onGrant = undefined
      waiting?.()
    }

    const closeWorker = (workerId: string): void => {
      const channel = byWorker.get(workerId)
      if (channel !== undefined) close(channel)
    }

    yield* notifications.listen(workerRevokedChannel).pipe(
      Stream.runForEach((workerId) => Effect.sync(() => closeWorker(workerId))),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for revoked workers (channel) failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )

    return { open, find, grant, closeWorker, size: () => byKey.size } as const
  })
}) {}
