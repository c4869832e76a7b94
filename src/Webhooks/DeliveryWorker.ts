import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Permits from "../Concurrency/Permits.js"
import { Tuning } from "../Config/Tuning.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { SecretBox } from "../Crypto/SecretBox.js"
import { Notifications } from "../Db/Notifications.js"
import { DeliveryHandoff, outboxRowOf } from "./Handoff.js"
import { outboxChannel } from "./Outbox.js"
import { DeliveriesRepo, type OutboxRow } from "./DeliveriesRepo.js"
import * as DeliveryAttempt from "./DeliveryAttempt.js"
import * as Sender from "./Sender.js"

export interface DeliveryOptions {
  /** One attempt's deadline (contract: 10 s). */
  readonly attemptTimeout: Duration.DurationInput
  /** How long a leased row stays ours without news; another instance takes it over after that. */
  readonly leaseDuration: Duration.DurationInput
  /** Poll for due rows at least this often, in case a NOTIFY was missed. */
  readonly sweepInterval: Duration.DurationInput
  /** At most this many rows leased per query. */
  readonly batchSize: number
}

export const defaults: DeliveryOptions = {
  attemptTimeout: Duration.seconds(10),
  leaseDuration: Duration.seconds(30),
  sweepInterval: Duration.seconds(5),
  batchSize: 100
}

/**
 * The delivery loop of one instance. It leases due outbox rows, delivers each
 * in its own fiber (so a slow endpoint never delays another trigger's
 * delivery; one delivery, attempts to recorded outcome, is `DeliveryAttempt`). Bounds:
 * - `webhookConcurrency` HTTP attempts at once (and as many sockets);
 * - 4 × that many rows leased at once: rows waiting out a backoff hold no
 *   socket, and a row is only leased when there is room for it.
 * Rows come two ways: handed over by this instance's terminal transitions,
 * already leased to us (`Webhooks/Handoff`, while there is room), or leased
 * here. Lease wake-ups: NOTIFY on `webhook_outbox` (a row nobody was handed),
 * a finished delivery when the loop was full, and a periodic sweep.
 * On shutdown the fibers are interrupted first, then the leases are handed back.
 */
export const run = (options: Partial<DeliveryOptions> = {}) =>
  Effect.gen(function*() {
    const config = yield* Tuning
    const opts = { ...defaults, leaseDuration: Duration.seconds(config.webhookLeaseSeconds), ...options }
    const repo = yield* DeliveriesRepo
    const box = yield* SecretBox
    const notifications = yield* Notifications
    const send = yield* Sender.make({ attemptTimeout: opts.attemptTimeout })

    const owner = uuidv7()
    const concurrency = Math.max(1, config.webhookConcurrency)
    const maxInFlight = concurrency * 4
    const sweepMs = Duration.toMillis(opts.sweepInterval)
    const permits = yield* Permits.make(concurrency)
    const wake = yield* Queue.sliding<void>(1)
    const signal = Effect.asVoid(Queue.offer(wake, undefined))

    // Registered before the fibers exist, so it runs after they are interrupted.
    yield* Effect.addFinalizer(() =>
      repo.release(owner).pipe(
        Effect.tap((n) => n > 0 ? Effect.logInfo("webhook leases released").pipe(Effect.annotateLogs({ rows: n })) : Effect.void),
        Effect.catchAllCause((cause) => Effect.logWarning("webhook leases not released; they expire", cause))
      )
    )
    // Started before the delivery fibers' set, so at shutdown its outcome writer stops after them.
    const deliver = yield* DeliveryAttempt.make({
      repo,
      box,
      owner,
      send,
      permits,
      leaseDuration: opts.leaseDuration,
      batchSize: opts.batchSize
    })
    const fibers = yield* FiberSet.make()

    // Plain counters: every fiber runs on the one JS thread, and each update is a single synchronous step.
    let inFlight = 0
    let saturated = false
    const resumeAt = maxInFlight - Math.min(opts.batchSize, Math.ceil(maxInFlight / 2))

    // A delivery's place in the loop is given back when it ends. A full loop
    // looks again once a batch's worth has finished, not after every delivery
    // (a lease and a wake-up per delivery).
    const finished = Effect.suspend(() => {
      inFlight--
      return saturated && inFlight <= resumeAt ? signal : Effect.void
    })
    /**
     * Starts the delivery of a row leased to us, its place (`inFlight`) already
     * taken. Interruptible explicitly: a fiber inherits its parent's
     * interruptibility, and a handed row comes from the terminal transition's
     * uninterruptible region; shutdown must still be able to stop it.
     */
    const admit = (row: OutboxRow) =>
      FiberSet.run(
        fibers,
        Effect.interruptible(deliver(row).pipe(Effect.ensuring(finished), Effect.annotateLogs({ service: "webhook-delivery" })))
      )

    /** Leases what there is room for; answers how long to wait before looking again. */
    const poll = Effect.gen(function*() {
      for (;;) {
        const room = maxInFlight - inFlight
        if (room <= 0) {
          saturated = true
          return sweepMs
        }
        const want = Math.min(room, opts.batchSize)
        const rows = yield* repo.lease(owner, want, opts.leaseDuration)
        inFlight += rows.length
        for (const row of rows) yield* admit(row)
        if (rows.length < want) break
      }
      saturated = false
      const due = yield* repo.nextDueIn
      // Never spin: a row due "now" that we could not lease is someone else's for the moment.
      return Option.match(due, { onNone: () => sweepMs, onSome: (ms) => Math.min(sweepMs, Math.max(50, ms)) })
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logWarning("webhook outbox poll failed; trying again", cause), sweepMs)
      )
    )

    const loop = Effect.gen(function*() {
      const waitMs = yield* poll
      yield* Queue.take(wake).pipe(Effect.timeout(Duration.millis(waitMs)), Effect.ignore)
    }).pipe(Effect.forever)

    const listener = notifications.listen(outboxChannel).pipe(
      Stream.runForEach(() => signal),
      Effect.tapErrorCause((cause) => Effect.logWarning("webhook outbox LISTEN failed; reconnecting", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(1)))
    )

    yield* Effect.forkScoped(listener)
    yield* Effect.forkScoped(loop)

    // Terminal transitions on this instance hand their rows straight here while
    // there is room (see `Webhooks/Handoff`). Attached last, so at shutdown it
    // detaches before the fibers stop; a row handed in that moment is released
    // with the other leases.
    const handoff = yield* DeliveryHandoff
    const leaseMillis = Duration.toMillis(opts.leaseDuration)
    yield* handoff.attach({
      reserve: () => {
        if (inFlight >= maxInFlight) return undefined
        inFlight++
        return { owner, leaseMillis, hand: (run) => Effect.asVoid(admit(outboxRowOf(run))), cancel: finished }
      }
    })
  }).pipe(Effect.annotateLogs({ service: "webhook-delivery" }))

/** The delivery loop as a background layer (see `App.layerBackground`). */
export const layerWith = (options: Partial<DeliveryOptions> = {}) => Layer.scopedDiscard(run(options))

export const layer = layerWith()
