import { describe, expect, it } from "@effect/vitest"
import { Conflict, NotFound } from "../../src/Contract/Domain/ApiErrors.js"
import { RunNotFound, RunStateConflict } from "../../src/Scheduler/RunRejection.js"
import { rejectedRun, rejectionError } from "../../src/Runs/RunWireErrors.js"

const runId = "01a2059a-8d10-7335-b62e-f1db70327ba4"

// Transitions says why a step was refused; the HTTP edge alone decides the status and the words.
describe("a refused worker step at the HTTP edge", () => {
  it("a run that is not the worker's: 404 run not found", () => {
    const error = rejectionError(new RunNotFound({ runId }))
    expect(error).toBeInstanceOf(NotFound)
    expect(error.error).toBe("run not found")
    expect(rejectedRun(new RunNotFound({ runId }))).toEqual({ runId, status: 404, error: "run not found" })
  })

  it("an ended run: 409 naming its state", () => {
    const why = new RunStateConflict({ runId, step: "complete", status: "succeeded" })
    const error = rejectionError(why)
    expect(error).toBeInstanceOf(Conflict)
    expect(error.error).toBe("cannot complete: run is succeeded")
    expect(rejectedRun(why)).toEqual({ runId, status: 409, error: "cannot complete: run is succeeded" })
  })

  it("a cancel of an ended run: 409 as the cancel answers it", () => {
    expect(rejectionError(new RunStateConflict({ runId, step: "cancel", status: "timed_out" })))
      .toEqual(new Conflict({ error: "cannot cancel: run is timed_out" }))
  })

  it("an active run in the wrong state or past its deadline: 409 saying either", () => {
    const error = rejectionError(new RunStateConflict({ runId, step: "start", status: "assigned" }))
    expect(error).toEqual(new Conflict({ error: "cannot start: deadline passed or cannot start a assigned run" }))
  })
})
