import * as Schema from "effect/Schema"
import { RunStatus } from "../Contract/Domain/Run.js"

/** A step that moves a run: a worker's (claim, start, heartbeat, complete) or a user's cancel or reschedule. */
export const RunStep = Schema.Literal("claim", "start", "heartbeat", "complete", "cancel", "reschedule")
export type RunStep = typeof RunStep.Type
export type WorkerStep = Exclude<RunStep, "cancel" | "reschedule">

/**
 * The run is not there for the caller: no such run, another worker's (for a
 * worker's step), or one the caller may not see.
 */
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
  step: RunStep,
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
