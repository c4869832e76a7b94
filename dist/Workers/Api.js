import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound, Unauthorized } from "../Domain/Errors.js";
import { Limit, Page, Payload } from "../Domain/Schemas.js";
import { StorableText } from "../Triggers/Api.js";
export const WorkerStatus = Schema.Literal("online", "offline").annotations({
    message: () => "must be online or offline"
});
/** `status` is derived: `online` while the worker was seen within WORKER_OFFLINE_AFTER_SECONDS. */
export class Worker extends Schema.Class("Worker")({
    id: Schema.UUID,
    environmentId: Schema.UUID,
    workspaceId: Schema.UUID,
    label: Schema.String,
    status: WorkerStatus,
    lastSeenAt: Schema.Date,
    createdAt: Schema.Date
}) {
}
export const Label = Schema.Trim.pipe(Schema.compose(StorableText.pipe(Schema.minLength(1, { message: () => "must be 1 to 200 characters" }), Schema.maxLength(200, { message: () => "must be 1 to 200 characters" }))));
export const RegisterWorker = Payload({
    registrationToken: StorableText.pipe(Schema.maxLength(512, { message: () => "must be a wrk_ registration token" })),
    label: Schema.optional(Label)
});
/** `token` (`wkt_…`) is shown in this response only; the service keeps its SHA-256. */
export const Registration = Schema.Struct({ worker: Worker, token: Schema.String });
export const ListWorkersParams = Schema.Struct({
    status: Schema.optional(WorkerStatus),
    cursor: Schema.optional(Schema.String),
    limit: Schema.optional(Limit)
});
// Path ids are plain strings: a malformed id names nothing, so it answers 404 like a missing one.
export class WorkersApi extends HttpApiGroup.make("workers")
    .add(HttpApiEndpoint.post("register", "/workers/register")
    .annotate(OpenApi.Summary, "Register a worker")
    .annotate(OpenApi.Description, "Exchanges a one-time `wrk_` registration token (in the body) for a worker and its `wkt_` token, which is in this answer only. 401 for an unknown or used registration token.")
    .setPayload(RegisterWorker)
    .addSuccess(Registration, { status: 201 })
    .addError(Unauthorized))
    .add(HttpApiEndpoint.get("listEnvironment", "/environments/:envId/workers")
    .annotate(OpenApi.Summary, "List an environment's workers")
    .annotate(OpenApi.Description, "viewer or higher; `status=online|offline` filters by whether the worker was seen within the offline threshold.")
    .setPath(Schema.Struct({ envId: Schema.String }))
    .setUrlParams(ListWorkersParams)
    .addSuccess(Page(Worker))
    .addError(NotFound)
    .addError(Forbidden)
    .middleware(Authentication))
    .add(HttpApiEndpoint.get("listWorkspace", "/workspaces/:wsId/workers")
    .annotate(OpenApi.Summary, "List a workspace's workers")
    .annotate(OpenApi.Description, "Workers of every environment of the workspace the caller may see (viewer or higher there).")
    .setPath(Schema.Struct({ wsId: Schema.String }))
    .setUrlParams(ListWorkersParams)
    .addSuccess(Page(Worker))
    .addError(NotFound)
    .middleware(Authentication))
    .add(HttpApiEndpoint.patch("updateLabel", "/workspaces/:wsId/workers/:workerId")
    .annotate(OpenApi.Summary, "Relabel a worker")
    .annotate(OpenApi.Description, "admin or higher on the worker's environment.")
    .setPath(Schema.Struct({ wsId: Schema.String, workerId: Schema.String }))
    .setPayload(Payload({ label: Label }))
    .addSuccess(Worker)
    .addError(NotFound)
    .addError(Forbidden)
    .middleware(Authentication)) {
}
//# sourceMappingURL=Api.js.map