import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { RunStatus } from "./Domain/Run.js"
import { IsoTimestamp, Limit, Page, Payload, Timestamp } from "./Domain/Schemas.js"
import { Tag } from "./Domain/Tags.js"
import { IdempotencyHeaders } from "./RunsApi.js"

export const BulkActionKind = Schema.Literal("cancel", "replay")
export type BulkActionKind = typeof BulkActionKind.Type

/**
 * `queued` until an instance takes it up, `running` while one works through
 * its runs (another takes over should that one stop), then `completed`, or
 * `cancelled` when cancelled before the end.
 */
export const BulkActionState = Schema.Literal("queued", "running", "completed", "cancelled")
export type BulkActionState = typeof BulkActionState.Type

/** The most run ids one bulk action names. */
export const maxRunIds = 10_000

/** Which runs of the environment a bulk action acts on: all conditions together (and). */
export const BulkFilter = Schema.Struct({
  status: Schema.optional(RunStatus.annotations({
    message: () => "status must be one of queued, assigned, claimed, running, succeeded, failed, timed_out, cancelled"
  })),
  triggerId: Schema.optional(Schema.UUID.annotations({ message: () => "triggerId must be a UUID" })),
  tag: Schema.optional(Tag),
  from: Schema.optional(IsoTimestamp),
  to: Schema.optional(IsoTimestamp)
})

/** The filter as it is read back (timestamps as ISO strings). */
export const BulkFilterView = Schema.Struct({
  status: Schema.optional(RunStatus),
  triggerId: Schema.optional(Schema.UUID),
  tag: Schema.optional(Schema.String),
  from: Schema.optional(Schema.String),
  to: Schema.optional(Schema.String)
})

export const BulkActionRequest = Payload({
  action: BulkActionKind.annotations({ message: () => "action must be cancel or replay" }),
  filter: Schema.optional(BulkFilter),
  runIds: Schema.optional(
    Schema.Array(Schema.UUID.annotations({ message: () => "each run id must be a UUID" })).pipe(
      Schema.maxItems(maxRunIds, { message: () => `runIds: at most ${maxRunIds} ids` })
    )
  )
}).annotations({
  description: "Either `filter` (at least one condition) or `runIds` (at least one id), not both."
})

/** Runs a bulk action left alone, by why. */
export const SkippedReasons = Schema.Struct({
  /** A cancel of a run that had ended already. */
  alreadyEnded: Schema.Int,
  /** No such run in the environment (an id of another environment, a deleted run), or, for a replay, its trigger is deleted. */
  notVisible: Schema.Int
})

export const BulkAction = Schema.Struct({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  action: BulkActionKind,
  /** The filter it was created with; null when it names runs by id. */
  filter: Schema.NullOr(BulkFilterView),
  /** How many run ids it was created with; null when it has a filter. */
  runIdCount: Schema.NullOr(Schema.Int),
  state: BulkActionState,
  /** The runs it acts on, fixed when it was created: the filter's matches then, or the distinct ids given. */
  matched: Schema.Int,
  /** Runs acted on: cancelled (or their cancel requested), or replayed. */
  done: Schema.Int,
  /** Runs left alone; `skippedReasons` says why. */
  skipped: Schema.Int,
  skippedReasons: SkippedReasons,
  /** Runs it could not act on (a replay whose input the trigger's schema now refuses); `lastError` says the latest why. */
  failed: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  cancelRequestedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  endedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "BulkAction" })
export type BulkAction = typeof BulkAction.Type

const EnvironmentPath = Schema.Struct({ envId: pathId("environment") })
const BulkActionPath = Schema.Struct({ id: pathId("bulk action") })

export const ListBulkActionsParams = Schema.Struct({
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
})

export class BulkActionsApi extends HttpApiGroup.make("bulkActions")
  .add(
    HttpApiEndpoint.post("createBulkAction", "/environments/:envId/bulk-actions")
      .annotate(OpenApi.Summary, "Cancel or replay many runs")
      .annotate(OpenApi.Description,
        "operator or higher. `{action: \"cancel\" | \"replay\", filter: {status, triggerId, tag, from, to}}` (at least one " +
          "condition; `from`/`to` bound `createdAt`, inclusive) or `{action, runIds: [...]}` (1 to 10,000). The runs it acts " +
          "on are fixed now (`matched`); it then works through them in the background, surviving restarts, each run acted on " +
          "once. A cancel is the one of `POST /runs/{id}/cancel`; a replay is the one of `POST /runs/{id}/replay`. " +
          "With an `Idempotency-Key` header, a repeat answers the first bulk action with 200. Audited once, when it ends, " +
          "with its filter and counts.")
      .setPath(EnvironmentPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(BulkActionRequest)
      .addSuccess(BulkAction, { status: 201 })
      .addSuccess(BulkAction, { status: 200 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("previewBulkAction", "/environments/:envId/bulk-actions/preview")
      .annotate(OpenApi.Summary, "How many runs a bulk action would match")
      .annotate(OpenApi.Description,
        "operator or higher. The same body as creating one, checked the same way; answers `{matched}` and creates " +
          "nothing (the dashboard confirms \"all N runs matching this filter\" with it).")
      .setPath(EnvironmentPath)
      .setPayload(BulkActionRequest)
      .addSuccess(Schema.Struct({ matched: Schema.Int }))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("listBulkActions", "/environments/:envId/bulk-actions")
      .annotate(OpenApi.Summary, "List an environment's bulk actions")
      .annotate(OpenApi.Description, "viewer or higher. Newest first.")
      .setPath(EnvironmentPath)
      .setUrlParams(ListBulkActionsParams)
      .addSuccess(Page(BulkAction))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("getBulkAction", "/bulk-actions/:id")
      .annotate(OpenApi.Summary, "A bulk action's progress")
      .annotate(OpenApi.Description, "viewer or higher. Its state and counts: matched, done, skipped (with why) and failed.")
      .setPath(BulkActionPath)
      .addSuccess(BulkAction)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("cancelBulkAction", "/bulk-actions/:id/cancel")
      .annotate(OpenApi.Summary, "Cancel a bulk action")
      .annotate(OpenApi.Description,
        "operator or higher. Stops it before the runs it has not reached: one not yet taken up ends `cancelled` at once; " +
          "one being worked through gets `cancelRequestedAt` and ends `cancelled` after the batch in hand. Runs already " +
          "acted on stay so. An ended bulk action is 409.")
      .setPath(BulkActionPath)
      .addSuccess(BulkAction)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .middleware(Authentication)
{}
