import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { toPolled } from "../WorkerProtocol/WorkerProtocolHttp.js"
import { Transitions } from "../Scheduler/Transitions.js"
import { Wakeups } from "../Scheduler/Dispatch.js"
import { WorkerProtocol } from "../WorkerProtocol/WorkerProtocol.js"
import type { Channel } from "./Connections.js"
import { type ChannelEvent, maxBatch } from "../Contract/WorkerChannelRpcs.js"

/**
 * What a channel pushes: a loop of `claim=true&start=true` long polls of
 * `WorkerProtocol.pollAnswer` for as many runs as the worker has slots
 * (waiting there as an offer, so run creation may hand it a new run
 * outright), and the cancel requests not yet pushed. With no slots left it
 * waits for a wake-up (an assignment or a cancel request) or more slots.
 * Either way the worker waits in `Wakeups`, which is what keeps it "seen"
 * (`Scheduler/Dispatch`) while its connection is open.
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

      const next = Effect.gen(function*() {
        while (true) {
          const since = wakeups.generationOf(workerId)
          const grants = channel.grants
          const answer = channel.credit > 0
            ? yield* protocol.pollAnswer(workerId, environmentId, {
              wait: Infinity,
              claim: true,
              max: Math.min(channel.credit, maxBatch),
              start: true
            })
            : yield* Effect.zipRight(idle(since, grants), Effect.map(transitions.cancelRequestedOf(workerId), (ids) => ({ runs: [], cancelRequested: ids })))
          channel.credit = Math.max(0, channel.credit - answer.runs.length)
          const fresh = answer.cancelRequested.filter((id) => !pushed.has(id))
          pushed = new Set(answer.cancelRequested)
          if (answer.runs.length > 0 || fresh.length > 0) {
            return { runs: answer.runs.map(toPolled), cancelRequested: fresh }
          }
          // A poll answers at once while cancel requests are pending; those were pushed already, so wait here.
          if (answer.cancelRequested.length > 0 && channel.credit > 0) yield* idle(since, grants)
        }
      })

      return Stream.repeatEffect(next)
    }
  })
}) {}
