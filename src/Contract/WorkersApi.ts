import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Forbidden, NotFound, Unauthorized } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Limit, Page, Payload } from "./Domain/Schemas.js"
import { StorableText } from "./TriggersApi.js"

export const WorkerStatus = Schema.Literal("online", "offline", "draining", "revoked").annotations({
  message: () => "must be online, offline, draining or revoked"
})

/**
 * `status` is derived: `revoked` for 24 h after its token was revoked (then the
 * worker is no longer listed), else `draining` while it is draining, else
 * `online` while it was seen within WORKER_OFFLINE_AFTER_SECONDS, else `offline`.
 */
export class Worker extends Schema.Class<Worker>("Worker")({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  workspaceId: Schema.UUID,
  label: Schema.String,
  status: WorkerStatus,
  lastSeenAt: Schema.Date,
  createdAt: Schema.Date
}) {}

export const Label = Schema.Trim.pipe(
  Schema.compose(StorableText.pipe(
    Schema.minLength(1, { message: () => "must be 1 to 200 characters" }),
    Schema.maxLength(200, { message: () => "must be 1 to 200 characters" })
  ))
)

export const RegisterWorker = Payload({
  registrationToken: StorableText.pipe(Schema.maxLength(512, { message: () => "must be a wrk_ registration token" })),
  label: Schema.optional(Label)
})

/** `token` (`wkt_…`) is shown in this response only; the service keeps its SHA-256. */
export const Registration = Schema.Struct({ worker: Worker, token: Schema.String })

export const ListWorkersParams = Schema.Struct({
  status: Schema.optional(WorkerStatus),
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
})

/** At least one of the two; both may change in one call. */
export const UpdateWorker = Payload({
  label: Schema.optional(Label),
  draining: Schema.optional(Schema.Boolean.annotations({ message: () => "must be true or false" }))
}).pipe(Schema.filter((body) =>
  body.label !== undefined || body.draining !== undefined ||
  { path: ["label"], message: "give a label or draining (or both)" }
))

// A worker outside the workspace is not found, so a malformed workspace segment names no worker either.
const WorkerPath = Schema.Struct({ wsId: pathId("worker"), workerId: pathId("worker") })

export class WorkersApi extends HttpApiGroup.make("workers")
  .add(
    HttpApiEndpoint.post("register", "/workers/register")
      .annotate(OpenApi.Summary, "Register a worker")
      .annotate(OpenApi.Description, "Exchanges a one-time `wrk_` registration token (in the body) for a worker and its `wkt_` token, which is in this answer only. 401 for an unknown or used registration token.")
      .setPayload(RegisterWorker)
      .addSuccess(Registration, { status: 201 })
      .addError(Unauthorized.wire)
  )
  .add(
    HttpApiEndpoint.get("listEnvironment", "/environments/:envId/workers")
      .annotate(OpenApi.Summary, "List an environment's workers")
      .annotate(OpenApi.Description, "viewer or higher; `status=online|offline` filters by whether the worker was seen within the offline threshold.")
      .setPath(Schema.Struct({ envId: pathId("environment") }))
      .setUrlParams(ListWorkersParams)
      .addSuccess(Page(Worker))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.get("listWorkspace", "/workspaces/:wsId/workers")
      .annotate(OpenApi.Summary, "List a workspace's workers")
      .annotate(OpenApi.Description, "Workers of every environment of the workspace the caller may see (viewer or higher there).")
      .setPath(Schema.Struct({ wsId: pathId("workspace") }))
      .setUrlParams(ListWorkersParams)
      .addSuccess(Page(Worker))
      .addError(NotFound.wire)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.patch("updateWorker", "/workspaces/:wsId/workers/:workerId")
      .annotate(OpenApi.Summary, "Relabel or drain a worker")
      .annotate(OpenApi.Description,
        "admin or higher on the worker's environment. `label` renames it; `draining: true` lets it finish the runs " +
          "it holds while it is assigned no new ones (its status reads `draining`), `false` takes it back into " +
          "assignment. A revoked worker is 404.")
      .setPath(WorkerPath)
      .setPayload(UpdateWorker)
      .addSuccess(Worker)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.del("revokeWorker", "/workspaces/:wsId/workers/:workerId")
      .annotate(OpenApi.Summary, "Revoke a worker")
      .annotate(OpenApi.Description,
        "admin or higher on the worker's environment. Its `wkt_` token is refused (401) at once on every instance; " +
          "its assigned runs go back to `queued`, its claimed and running runs end `timed_out` (faultClass `infra`, " +
          "retried when they have retries left). Listings show it as `revoked` for 24 hours. 404 when already revoked.")
      .setPath(WorkerPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .middleware(Authentication)
  )
{}
