import * as Schema from "effect/Schema"
import { RunStatus } from "../Runs/Run.js"

/** A worker's step on one of its runs. */
export const WorkerStep = Schema.Literal("claim", "start", "heartbeat", "complete")
export type WorkerStep = typeof WorkerStep.Type

/** The run is not the worker's: there is no such run, or another worker holds it. */
export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", { runId: Schema.String }) {
  override get message(): string {
    return "run not found"
  }
}

/**
 * The worker's run is in a state the step cannot move it from. An active run
 * (assigned, claimed, running) refuses a step that does not apply to its
 * state, or any step once its deadline passed (supervision is about to end it).
 */
export class RunStateConflict extends Schema.TaggedError<RunStateConflict>()("RunStateConflict", {
  runId: Schema.String,
  step: WorkerStep,
  status: RunStatus
}) {
  override get message(): string {
    const active = this.status === "assigned" || this.status === "claimed" || this.status === "running"
    const why = active ? `deadline passed or cannot ${this.step} a ${this.status} run` : `run is ${this.status}`
    return `cannot ${this.step}: ${why}`
  }
}

/** Why a step left a run where it was. */
export type RunRejection = RunNotFound | RunStateConflict
