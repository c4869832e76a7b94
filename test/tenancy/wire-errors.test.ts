import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Conflict, Forbidden, NotFound } from "../../src/Contract/Domain/ApiErrors.js"
import * as E from "../../src/Tenancy/TenancyErrors.js"
import { answerAccess, answerTenancyErrors } from "../../src/Tenancy/TenancyWireErrors.js"

const id = "01a2059a-8d10-7335-b62e-f1db70327ba4"
const answered = (error: unknown) => Effect.flip(answerTenancyErrors(Effect.fail(error)))

// Workspaces, environments and members say what happened; the handlers answer the contract's statuses and words.
describe("tenancy errors at the HTTP edge", () => {
  it.effect("each reason answers its status and words", () =>
    Effect.gen(function*() {
      expect(yield* answered(new E.WorkspaceNotFound({ workspaceId: id }))).toEqual(new NotFound({ error: "workspace not found" }))
      expect(yield* answered(new E.NotWorkspaceOwner({ workspaceId: id })))
        .toEqual(new Forbidden({ error: "only the workspace owner creates environments" }))
      expect(yield* answered(new E.EnvironmentNotFound({ environmentId: id }))).toEqual(new NotFound({ error: "environment not found" }))
      expect(yield* answered(new E.EnvironmentHasActiveRuns({ environmentId: id, activeRuns: 2 })))
        .toEqual(new Conflict({ error: "environment has 2 active run(s); wait for them to finish" }))
      expect(yield* answered(new E.UserNotFound({ userId: id }))).toEqual(new NotFound({ error: "user not found" }))
      expect(yield* answered(new E.MemberNotFound({ userId: id }))).toEqual(new NotFound({ error: "member not found" }))
      expect(yield* answered(new E.AlreadyMember({ userId: id }))).toEqual(new Conflict({ error: "user is already a member" }))
      expect(yield* answered(new E.OwnerRoleReserved()))
        .toEqual(new Forbidden({ error: "only an owner grants, changes or removes the owner role" }))
      expect(yield* answered(new E.LastOwner())).toEqual(new Conflict({ error: "an environment must keep at least one owner" }))
    }))
})

describe("the access policy's refusals at the HTTP edge", () => {
  it.effect("not visible answers 404 naming the thing asked for; below the role 403", () =>
    Effect.gen(function*() {
      const notVisible = new E.NotVisible({ environmentId: id, what: "trigger" })
      const tooLow = new E.InsufficientRole({ environmentId: id, required: "admin", actual: "viewer" })
      expect(yield* Effect.flip(answerAccess(Effect.fail(notVisible)))).toEqual(new NotFound({ error: "trigger not found" }))
      expect(yield* Effect.flip(answerAccess(Effect.fail(tooLow)))).toEqual(new Forbidden({ error: "insufficient role" }))
      // Every feature's mapping answers them the same way.
      expect(yield* answered(notVisible)).toEqual(new NotFound({ error: "trigger not found" }))
      expect(yield* answered(tooLow)).toEqual(Forbidden.role)
    }))
})
