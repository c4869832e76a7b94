import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { actorColumns } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { Policy } from "../Tenancy/Policy.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import type { BulkAction, BulkActionRequest } from "../Contract/BulkActionsApi.js"
import { BulkActionsRepo, type BulkActionRow, toBulkAction } from "./BulkActionsRepo.js"
import { BulkActionRunner } from "./Runner.js"

/** No bulk action with this id, or one the caller cannot see. */
export class BulkActionNotFound extends Schema.TaggedError<BulkActionNotFound>()("BulkActionNotFound", { id: Schema.String }) {
  override get message(): string {
    return "bulk action not found"
  }
}

/** A cancel of a bulk action that has ended. */
export class BulkActionEnded extends Schema.TaggedError<BulkActionEnded>()("BulkActionEnded", {
  id: Schema.String,
  state: Schema.String
}) {
  override get message(): string {
    return `bulk action is ${this.state}`
  }
}

/** Every front door to bulk actions: who may (the policy), what is valid, then the store and the runner. */
export class BulkActions extends Effect.Service<BulkActions>()("BulkActions/BulkActions", {
  effect: Effect.gen(function*() {
    const repo = yield* BulkActionsRepo
    const policy = yield* Policy
    const runner = yield* BulkActionRunner

    /** A bulk action visible to the caller at `min` or above. */
    const visible = (id: string, min: "viewer" | "operator") =>
      Effect.gen(function*() {
        const row = yield* repo.find(id)
        if (row === undefined) return yield* Effect.fail(new BulkActionNotFound({ id }))
        yield* policy.requireRole(row.environment_id, min, "bulk action")
        return row
      })

    /**
     * A new bulk action in the environment (operator+), its runs fixed now,
     * handed to this instance's runner; or the earlier one for a repeated
     * Idempotency-Key (`created: false`). 400 when it names no run: a filter
     * without a condition, no ids, or both a filter and ids.
     */
    /** The request's runs, checked: a filter with a condition, or ids (distinct), never both (400 otherwise). */
    const selection = (request: typeof BulkActionRequest.Type) => {
      const filter = request.filter
      const conditions = filter === undefined ? 0 : Object.values(filter).filter((v) => v !== undefined).length
      if (filter !== undefined && request.runIds !== undefined) {
        return Effect.fail(ValidationError.fields_({}, ["a bulk action has either a filter or runIds, not both"]))
      }
      if (conditions === 0 && (request.runIds === undefined || request.runIds.length === 0)) {
        return Effect.fail(ValidationError.fields_({}, ["a bulk action needs at least one condition or ids"]))
      }
      const runIds = request.runIds === undefined ? undefined : [...new Set(request.runIds.map((id) => id.toLowerCase()))]
      return Effect.succeed({ filter, runIds })
    }

    /** How many runs the request would match now (operator+, as creating it); nothing is created. */
    const preview = Effect.fn("BulkActions.preview")(function*(environmentId: string, request: typeof BulkActionRequest.Type) {
      yield* policy.requireRole(environmentId, "operator")
      const { filter, runIds } = yield* selection(request)
      return { matched: runIds !== undefined ? runIds.length : yield* repo.countMatching(environmentId, filter ?? {}) }
    })

    const create = Effect.fn("BulkActions.create")(function*(
      environmentId: string,
      request: typeof BulkActionRequest.Type,
      idempotencyKey: string | undefined
    ) {
      yield* policy.requireRole(environmentId, "operator")
      const actor = yield* CurrentActor
      const { filter, runIds } = yield* selection(request)
      const columns = actorColumns(actor)
      const { created, row } = yield* repo.create({
        environmentId,
        action: request.action,
        filter,
        filterView: filter === undefined ? undefined : Object.fromEntries(
          Object.entries(filter).flatMap(([k, v]) => v === undefined ? [] : [[k, v instanceof Date ? v.toISOString() : v]])
        ),
        runIds,
        idempotencyKey,
        actor: { ...columns, role: actor._tag === "User" ? null : actor.role }
      })
      if (created) {
        yield* runner.wake
        yield* Effect.logInfo("bulk action created").pipe(
          Effect.annotateLogs({ bulkActionId: row.id, action: row.action, matched: row.matched })
        )
      }
      return { bulkAction: toBulkAction(row), created }
    })

    /** The bulk action and its progress (viewer+). */
    const get = (id: string): Effect.Effect<BulkAction, BulkActionNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.map(visible(id, "viewer"), toBulkAction)

    /** A page of the environment's bulk actions, newest first (viewer+); `limit + 1` rows for `Pagination.page`. */
    const list = (
      environmentId: string,
      before: string | undefined,
      limit: number
    ): Effect.Effect<ReadonlyArray<BulkAction>, NotVisible | InsufficientRole, CurrentActor> =>
      Effect.zipRight(
        policy.requireRole(environmentId, "viewer"),
        Effect.map(repo.list(environmentId, before, limit), (rows) => rows.map(toBulkAction))
      )

    /** Cancels it (operator+): ended at once when no instance holds it, else asked to stop after the batch in hand. */
    const cancel = Effect.fn("BulkActions.cancel")(function*(id: string) {
      const row: BulkActionRow = yield* visible(id, "operator")
      const cancelled = yield* repo.cancel(row.id)
      if (cancelled !== undefined) return toBulkAction(cancelled)
      const now = yield* repo.find(row.id)
      return yield* Effect.fail(new BulkActionEnded({ id: row.id, state: now?.state ?? row.state }))
    })

    return { create, preview, get, list, cancel } as const
  })
}) {}
