import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import type { Run } from "../Contract/Domain/Run.js"
import { maxBatch, type StepAnswer } from "../Contract/WorkerChannelRpcs.js"
import * as Batcher from "./Batcher.js"
import type { CompletePayload, WorkerCalls } from "./Calls.js"
import type { ChannelLink } from "./ChannelLink.js"
import type { SlotLedger } from "./SlotLedger.js"
import { CallDefect } from "./Transient.js"

type Answer = typeof StepAnswer.Type

/** Each run's outcome in a batched answer: its run, or the REST error its refusal stands for. */
const outcomes = (runIds: ReadonlyArray<string>, answer: Answer): ReadonlyArray<Effect.Effect<{ readonly run: typeof Run.Type }, NotFound | Conflict | CallDefect>> => {
  const moved = new Map(answer.runs.map((run) => [run.id, run]))
  const refused = new Map(answer.rejected.map((why) => [why.runId, why]))
  return runIds.map((runId) => {
    const run = moved.get(runId)
    if (run !== undefined) return Effect.succeed({ run })
    const why = refused.get(runId)
    // Retried as transient, as any other failure of the call.
    if (why === undefined) return Effect.fail(new CallDefect({ defect: `the channel answered nothing for run ${runId}` }))
    return Effect.fail(why.status === 404 ? new NotFound({ error: why.error }) : new Conflict({ error: why.error }))
  })
}

/**
 * The run steps over the channel: the calls of one step that come together
 * (heartbeats of several runs, the completes of a burst) go out as one
 * request, answered per run. A run started by the channel's push needs no
 * claim; `claim` is there for the interface and refuses. A complete gives
 * back the slots of the runs it names when it can (`SlotLedger`). A run's log
 * lines go as their own message, batched per run by `RunLog`.
 */
export const make = (link: ChannelLink, slots: SlotLedger): Effect.Effect<WorkerCalls, never, Scope.Scope> =>
  Effect.gen(function*() {
    const starts = yield* Batcher.make(maxBatch, (runIds: ReadonlyArray<string>) =>
      Effect.map(link.use((client) => client.Start({ runIds })), (answer) => outcomes(runIds, answer)))
    const heartbeats = yield* Batcher.make(maxBatch, (runIds: ReadonlyArray<string>) =>
      Effect.map(link.use((client) => client.Heartbeat({ runIds })), (answer) => outcomes(runIds, answer)))
    const completes = yield* Batcher.make(maxBatch, (items: ReadonlyArray<{ readonly runId: string; readonly payload: CompletePayload }>) => {
      const runIds = items.map((item) => item.runId)
      return Effect.map(
        link.use((client) => {
          // The slots of these runs go back with their complete (`SlotLedger`).
          const back = slots.returning(client, runIds)
          return Effect.tap(
            client.Complete({ runs: items.map((item) => ({ runId: item.runId, ...item.payload })), ...(back.runIds.length > 0 ? { slots: back.runIds.length } : {}) }),
            // A service that does not grant a complete's slots says nothing of them: they go back with `Slots`.
            (answer) => answer.slotsGranted === back.runIds.length ? slots.returned(back.token, back.runIds) : undefined
          )
        }),
        (answer) => outcomes(runIds, answer)
      )
    })
    return {
      claim: (runId) => Effect.fail(new Conflict({ error: `run ${runId} came over the channel already claimed` })),
      start: starts,
      heartbeat: heartbeats,
      complete: (runId, payload) => completes({ runId, payload }),
      logs: (runId, payload) => link.use((client) => client.Logs({ runId, ...payload }))
    }
  })
