import * as Effect from "effect/Effect"
import { toRun } from "../Domain/Run.js"
import { RunStore } from "../RunStore/RunStore.js"
import type { Terminal } from "../RunStore/Terminal.js"
import { RunEvents } from "./RunEvents.js"
import { RunFeed } from "./RunFeed.js"
import { RunNotFound, type RunRejection, RunStateConflict, type WorkerStep } from "./RunRejection.js"

/**
 * What follows the run store's transition statements (`Steps`, `Endings`,
 * `CancelRequests`): the live feed, the terminal-run stream, and why a run
 * matched no row. Built once with the `Transitions` service: the transitions
 * are plain closures over it, so splitting them into files costs nothing per call.
 */
export const make = Effect.gen(function*() {
  const events = yield* RunEvents
  const feed = yield* RunFeed
  const store = yield* RunStore

  // Live subscribers of the runs' environments look at the new timeline rows now.
  const announced = (rows: ReadonlyArray<{ readonly environment_id: string }>) =>
    rows.length === 0 ? Effect.void : feed.announce(new Set(rows.map((row) => row.environment_id)))

  const published = (terminal: Terminal | undefined) =>
    terminal === undefined || terminal.run.ended_at === null ? Effect.void : events.publish(toRun(terminal.run))

  /** Why each of the worker's runs matched no row: not its run, or the wrong state for the step. */
  const rejections = (workerId: string, runIds: ReadonlyArray<string>, step: WorkerStep) =>
    Effect.map(
      store.statusesOf(workerId, runIds),
      (rows): ReadonlyArray<RunRejection> => {
        const status = new Map(rows.map((row) => [row.id, row.status]))
        return runIds.map((runId) => {
          const now = status.get(runId)
          return now === undefined ? new RunNotFound({ runId }) : new RunStateConflict({ runId, step, status: now })
        })
      }
    )

  return { store, events, announced, published, rejections } as const
})

export type TransitionKit = Effect.Effect.Success<typeof make>
