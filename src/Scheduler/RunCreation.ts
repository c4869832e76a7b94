import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { TuningShape } from "../Config/Tuning.js"
import type { PolledRow } from "../Domain/Run.js"
import type { Advance, Created, CreateRequest, Placement } from "../RunStore/Creation.js"
import type { RunStore } from "../RunStore/RunStore.js"
import type { Assignment, Deadline } from "./Assignment.js"
import type { RunFeed } from "./RunFeed.js"
import { assignedChannel } from "../RunStore/Assignment.js"
import type { Wakeups } from "./Wakeups.js"

/**
 * New runs, dispatched: created by the run store with the placement rules
 * (offered to the `claim=true` polls waiting here), then what each needs on
 * this instance: its claim deadline supervised and its worker's poll woken,
 * or an assignment pass when it was left queued.
 */
export const make = (deps: {
  readonly config: TuningShape
  readonly store: RunStore
  readonly assignment: Assignment
  readonly wakeups: Wakeups
  readonly feed: RunFeed
  readonly watch: (runId: string, deadlineMs: number) => Effect.Effect<void>
  readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
}) => {
  const { assignAndWatch, assignment, config, feed, store, wakeups, watch } = deps

  /** The rules run creation uses to assign a new run in its own statement. */
  const placement: Placement = {
    claimTimeoutSeconds: config.claimTimeoutSeconds,
    workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
    maxAssignedPerWorker: config.maxAssignedPerWorker,
    activeWorkerSeconds: config.activeWorkerSeconds,
    channel: assignedChannel
  }

  /**
   * After run requests: a run placed by its creating statement gets its
   * claim deadline supervised and its worker's poll woken here (other
   * instances' polls wake on the statement's NOTIFY); runs left queued get
   * an assignment pass (one for the lot).
   */
  const requested = (created: ReadonlyArray<Created | undefined>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const queuedIn = new Set<string>()
      const effects: Array<Effect.Effect<unknown>> = []
      const environments = new Set<string>()
      for (const run of created) {
        if (run === undefined || !run.created) continue
        environments.add(run.run.environment_id)
        if (run.assigned === undefined) {
          queuedIn.add(run.run.environment_id)
          continue
        }
        effects.push(watch(run.run.id, run.assigned.deadlineAt.getTime()))
        // A run claimed for a waiting poll was handed to it already (see `createRuns`).
        if (run.assigned.claimed === undefined) effects.push(wakeups.wake(run.assigned.workerId))
      }
      for (const environmentId of queuedIn) effects.push(assignAndWatch(environmentId))
      effects.push(feed.announce(environments))
      return Effect.all(effects, { discard: true })
    })

  /** Undoes a run claimed for a poll that went away meanwhile: assigned to its worker, for its next poll. */
  const unclaim = (claimed: PolledRow) =>
    assignment.unclaim(claimed.id, claimed.worker_id!).pipe(
      Effect.flatMap((deadline) =>
        deadline === undefined ? Effect.void : Effect.zipRight(watch(claimed.id, deadline.getTime()), wakeups.wake(claimed.worker_id!))
      ),
      Effect.zipLeft(Effect.logInfo("handed-over run's poll had gone; claim undone").pipe(Effect.annotateLogs({ runId: claimed.id })))
    )

  /**
   * Creates runs of one trigger (`RunStore.createMany`) with the placement
   * rules, then supervises what it created (`requested`). It offers the
   * statement the `claim=true` polls waiting here in the runs' environment:
   * a run placed on one of their workers is claimed in that statement and
   * handed to the poll, which then needs no statement of its own. Should
   * that poll have gone away meanwhile, the claim is undone (the run is
   * assigned to the worker, for its next poll).
   */
  const createRuns = (
    triggerId: string,
    requests: ReadonlyArray<CreateRequest>,
    options: { readonly environmentId?: string | undefined; readonly advance?: Advance | undefined } = {}
  ): Effect.Effect<ReadonlyArray<Created | undefined>> =>
    Effect.uninterruptibleMask((restore) => {
      const reservation = wakeups.reserve(options.environmentId)
      const create = (placement: Placement) => store.createMany(triggerId, requests, { ...options, placement })
      const created = reservation.workerIds.length === 0
        ? restore(create(placement))
        : restore(create({ ...placement, claimFor: reservation.workerIds })).pipe(
          Effect.onExit((exit) => {
            const claimed = Exit.isSuccess(exit)
              ? exit.value.flatMap((run) => run?.assigned?.claimed === undefined ? [] : [run.assigned.claimed])
              : []
            return Effect.forEach(reservation.settle(claimed), unclaim, { discard: true })
          })
        )
      // Part of creating, so no caller can forget it: an unsupervised run would wait for the sweep.
      return Effect.tap(created, requested)
    })

  return createRuns
}
