import * as Schema from "effect/Schema"
import { Timestamp } from "./Domain/Schemas.js"
import { WebhookDelivery } from "./WebhooksApi.js"
import { Run, RunStatus } from "./Domain/Run.js"
import { RunEventReason } from "./Domain/Run.js"

// Wire schemas of a run's detail and timeline (part of the contract: no server imports here).

/** One step of a run's timeline (`GET /runs/{id}/events`). */
export const RunEvent = Schema.Struct({
  status: RunStatus,
  at: Timestamp,
  workerId: Schema.NullOr(Schema.UUID),
  reason: RunEventReason
}).annotations({ identifier: "RunEvent" })
export type RunEvent = typeof RunEvent.Type

/** `GET /runs/{id}`: the run object with its trigger's name, its lineage, its latest webhook delivery and cancel request. */
export const RunDetail = Schema.Struct({
  ...Run.fields,
  triggerName: Schema.String,
  retriedByRunId: Schema.NullOr(Schema.UUID),
  delivery: Schema.NullOr(WebhookDelivery),
  output: Schema.Unknown.annotations({
    jsonSchema: { description: "The run's structured result: the JSON its worker sent with `complete` (null when none)." }
  })
}).annotations({ identifier: "RunDetail" })
export type RunDetail = typeof RunDetail.Type
