import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { toPolled } from "../WorkerProtocol/Http.js"
import { Transitions } from "../Scheduler/Transitions.js"
import { Wakeups } from "../Scheduler/Wakeups.js"
import { WorkerProtocol } from "../WorkerProtocol/WorkerProtocol.js"
import type { Channel } from "./Connections.js"
import { type ChannelEvent, maxBatch } from "./Rpcs.js"

/**
 * The longest a channel's poll waits in one go. A REST long poll ends every
 * 30 s because HTTP must answer; a channel need not: what can be pushed
 * arrives as a wake-up (an assignment here or, through NOTIFY, on another
 * instance; a cancel request; more slots), and a run assigned to a worker
 * that never claims it goes back to assignment at its claim deadline. So an
 * idle connection looks at the database again only this rarely, as a safety
 * net for a lost wake-up: each look is a handful of statements, which at
 * 30 s would be ~2,000 a second for 10,000 idle workers.
 */
const waitSeconds = 300

/**
 * What a channel pushes: a loop of `claim=true&start=true` long polls of
 * `WorkerProtocol.pollAnswer` for as many runs as the worker has slots
 * (waiting there as an offer, so run creation may hand it a new run
 * outright), and the cancel requests not yet pushed. With no slots left it
 * waits for a wake-up (an assignment or a cancel request) or more slots.
 * Either way the worker waits in `Wakeups`, which is what keeps it "seen"
 * (`Scheduler/Presence`) while its connection is open.
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

      /** Until a wake-up after `since`, more slots (after `granted`), or the wait's end. */
      const idle = (since: number, granted: Deferred.Deferred<void>) =>
        Effect.scoped(Effect.gen(function*() {
          const woken = yield* wakeups.subscribe(workerId)
          if (wakeups.generationOf(workerId) !== since) return
          yield* Effect.raceFirst(woken, Deferred.await(granted)).pipe(Effect.timeoutOption(`${waitSeconds} seconds`))
        }))

      const next = Effect.gen(function*() {
        while (true) {
          const since = wakeups.generationOf(workerId)
          const granted = channel.granted
          const answer = channel.credit > 0
            ? yield* protocol.pollAnswer(workerId, environmentId, {
              wait: waitSeconds,
              claim: true,
              max: Math.min(channel.credit, maxBatch),
              start: true
            })
            : yield* Effect.zipRight(idle(since, granted), Effect.map(transitions.cancelRequestedOf(workerId), (ids) => ({ runs: [], cancelRequested: ids })))
          channel.credit = Math.max(0, channel.credit - answer.runs.length)
          const fresh = answer.cancelRequested.filter((id) => !pushed.has(id))
          pushed = new Set(answer.cancelRequested)
          if (answer.runs.length > 0 || fresh.length > 0) {
            return { runs: answer.runs.map(toPolled), cancelRequested: fresh }
          }
          // A poll answers at once while cancel requests are pending; those were pushed already, so wait here.
          if (answer.cancelRequested.length > 0 && channel.credit > 0) yield* idle(since, granted)
        }
      })

      return Stream.repeatEffect(next)
    }
  })
}) {}
