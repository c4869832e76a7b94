import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "../Auth/Security.js"
import { Forbidden, NotFound, Unauthorized } from "../Domain/Errors.js"
import { Limit, Page, Payload } from "../Domain/Schemas.js"
import { StorableText } from "../Triggers/Api.js"

export const WorkerStatus = Schema.Literal("online", "offline").annotations({
  message: () => "must be online or offline"
})

/** `status` is derived: `online` while the worker was seen within WORKER_OFFLINE_AFTER_SECONDS. */
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

// Path ids are plain strings: a malformed id names nothing, so it answers 404 like a missing one.
export class WorkersApi extends HttpApiGroup.make("workers")
  .add(
    HttpApiEndpoint.post("register", "/workers/register")
      .setPayload(RegisterWorker)
      .addSuccess(Registration, { status: 201 })
      .addError(Unauthorized)
  )
  .add(
    HttpApiEndpoint.get("listEnvironment", "/environments/:envId/workers")
      .setPath(Schema.Struct({ envId: Schema.String }))
      .setUrlParams(ListWorkersParams)
      .addSuccess(Page(Worker))
      .addError(NotFound)
      .addError(Forbidden)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.get("listWorkspace", "/workspaces/:wsId/workers")
      .setPath(Schema.Struct({ wsId: Schema.String }))
      .setUrlParams(ListWorkersParams)
      .addSuccess(Page(Worker))
      .addError(NotFound)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.patch("updateLabel", "/workspaces/:wsId/workers/:workerId")
      .setPath(Schema.Struct({ wsId: Schema.String, workerId: Schema.String }))
      .setPayload(Payload({ label: Label }))
      .addSuccess(Worker)
      .addError(NotFound)
      .addError(Forbidden)
      .middleware(Authentication)
  )
{}
