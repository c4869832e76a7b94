import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { NotFound, Unauthorized } from "../../src/Contract/Domain/ApiErrors.js"
import { WorkspaceNotFound } from "../../src/Tenancy/TenancyErrors.js"
import { InvalidRegistrationToken, WorkerNotFound } from "../../src/Workers/WorkerErrors.js"
import { answerWorkerErrors } from "../../src/Workers/WorkerWireErrors.js"

const id = "01a2059a-8d10-7335-b62e-f1db70327ba4"
const answered = (error: WorkerNotFound | WorkspaceNotFound | InvalidRegistrationToken) =>
  Effect.flip(answerWorkerErrors(Effect.fail(error)))

// The workers service says what happened; its handlers answer the contract's statuses and words.
describe("worker errors at the HTTP edge", () => {
  it.effect("each reason answers its status and words", () =>
    Effect.gen(function*() {
      expect(yield* answered(new WorkerNotFound({ workerId: id }))).toEqual(new NotFound({ error: "worker not found" }))
      expect(yield* answered(new WorkspaceNotFound({ workspaceId: id }))).toEqual(new NotFound({ error: "workspace not found" }))
      expect(yield* answered(new InvalidRegistrationToken()))
        .toEqual(new Unauthorized({ error: "invalid or already used registration token" }))
    }))
})
