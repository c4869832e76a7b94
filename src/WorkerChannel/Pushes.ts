import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { toPolled } from "../WorkerProtocol/WorkerProtocolHttp.js"
import { Transitions } from "../Scheduler/Transitions.js"
import { Wakeups } from "../Scheduler/Dispatch.js"
import { WorkerProtocol } from "../WorkerProtocol/WorkerProtocol.js"
import type { Channel } from "./Connections.js"
import type { PolledRow } from "../Contract/Domain/Run.js"
import { type ChannelEvent, maxBatch } from "../Contract/WorkerChannelRpcs.js"

/**
 * What a channel pushes: the worker's runs, claimed and started as they are
 * handed to it, for as many as it has slots, and the cancel requests not yet
 * pushed. One look is one statement (`WorkerProtocol.pushLook`: runs claimed
 * and started, cancel requests read, together); finding nothing, the
 * connection waits as an offer, so run creation may hand it a new run
 * outright. With no slots left it waits for a wake-up (an assignment or a
 * cancel request) or more slots, and reads the cancel requests only when a
 * wake-up came since it last read them. Either way the worker waits in
 * `Wakeups`, which is what keeps it "seen" (`Scheduler/Dispatch`) while its
 * connection is open.
 *
 * Neither wait has a deadline. A REST long poll ends every 30 s because HTTP
 * must answer; a channel need not: what can be pushed arrives as a wake-up
 * (an assignment here or, through NOTIFY, on another instance, and every
 * waiting worker is woken when that LISTEN is taken up again; a cancel
 * request; more slots), and a run assigned to a worker that never claims it
 * goes back to assignment at its claim deadline. So an idle connection never
 * looks at the database on its own, and waits as the connection's one
 * request fiber parked on a callback: no timer, no timer fiber, no race.
 */
export class Pushes extends Effect.Service<Pushes>()("WorkerChannel/Pushes", {
  effect: Effect.gen(function*() {
    const protocol = yield* WorkerProtocol
    const wakeups = yield* Wakeups
    const transitions = yield* Transitions

    return (channel: Channel): Stream.Stream<typeof ChannelEvent.Type> => {
      const { environmentId, workerId } = channel.worker
      // The cancel requests pushed and still pending: each is pushed once per connection.
      let pushed = new Set<string>()
      // The wake-up generation before the cancel requests were last read: a cancel request since woke the worker after it.
      let cancelsRead = -1

      /** Until a wake-up after `since` or a grant after `grants`: a callback on each, whichever comes first. */
      const idle = (since: number, grants: number) =>
        Effect.async<void>((resume) => {
          if (channel.grants !== grants) return resume(Effect.void)
          let withdraw = () => {}
          const done = () => {
            withdraw()
            channel.onGrant = undefined
            resume(Effect.void)
          }
          channel.onGrant = done
          withdraw = wakeups.onWake(workerId, since, done)
          return Effect.sync(() => {
            withdraw()
            channel.onGrant = undefined
          })
        })

      /** The event for what a look found (undefined when nothing new): the runs, and the cancel requests not pushed yet. */
      const eventOf = (runs: ReadonlyArray<PolledRow>, cancelRequested: ReadonlyArray<string> | undefined): typeof ChannelEvent.Type | undefined => {
        channel.credit = Math.max(0, channel.credit - runs.length)
        let fresh: ReadonlyArray<string> = []
        if (cancelRequested !== undefined) {
          fresh = cancelRequested.filter((id) => !pushed.has(id))
          pushed = new Set(cancelRequested)
        }
        return runs.length > 0 || fresh.length > 0 ? { runs: runs.map(toPolled), cancelRequested: fresh } : undefined
      }

      const next = Effect.gen(function*() {
        while (true) {
          const since = wakeups.generationOf(workerId)
          if (channel.credit > 0) {
            const look = yield* protocol.pushLook(workerId, environmentId, Math.min(channel.credit, maxBatch))
            cancelsRead = since
            const event = eventOf(look.runs, look.cancelRequested)
            if (event !== undefined) return event
            const handed = eventOf(yield* protocol.awaitPush(workerId, environmentId, since), undefined)
            if (handed !== undefined) return handed
          } else {
            yield* idle(cancelsRead, channel.grants)
            if (channel.credit > 0) continue
            const read = wakeups.generationOf(workerId)
            const event = eventOf([], yield* transitions.cancelRequestedOf(workerId))
            cancelsRead = read
            if (event !== undefined) return event
          }
        }
      })

      return Stream.repeatEffect(next)
    }
  })
}) {}
