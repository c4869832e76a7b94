import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication, UserAuthentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Limit, Page, Payload, Role, Timestamp } from "./Domain/Schemas.js"

/** Names are trimmed; blank, over 200 characters or containing NUL is a 400. */
export const Name = Schema.Trim.pipe(
  Schema.compose(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must not be empty" }),
      Schema.maxLength(200, { message: () => "must be at most 200 characters" }),
      // Postgres text cannot hold NUL: refuse it here as a 400 rather than fail in SQL.
      Schema.pattern(/^[^\u0000]*$/, { message: () => "must not contain NUL characters" })
    )
  )
)

export const Workspace = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  ownerId: Schema.UUID,
  createdAt: Timestamp
}).annotations({ identifier: "Workspace" })
export type Workspace = typeof Workspace.Type

export const Environment = Schema.Struct({
  id: Schema.UUID,
  workspaceId: Schema.UUID,
  name: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "Environment" })
export type Environment = typeof Environment.Type

export const Member = Schema.Struct({
  userId: Schema.UUID,
  email: Schema.String,
  role: Role,
  createdAt: Timestamp
}).annotations({ identifier: "Member" })
export type Member = typeof Member.Type

/** `cursor` and `limit` of every list endpoint. */
export const PageParams = Schema.Struct({
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
})

const NamePayload = Payload({ name: Name })

const environmentId = pathId("environment")
const wsPath = Schema.Struct({ wsId: pathId("workspace") })
const envPath = Schema.Struct({ id: environmentId })
const membersPath = Schema.Struct({ envId: environmentId })
const memberPath = Schema.Struct({ envId: environmentId, userId: pathId("member") })

/** Workspace routes: session cookie only (an API key belongs to one environment, not a workspace). */
export class WorkspacesApi extends HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.post("create", "/workspaces")
      .annotate(OpenApi.Summary, "Create a workspace")
      .annotate(OpenApi.Description, "Creates a workspace owned by the caller.")
      .setPayload(NamePayload)
      .addSuccess(Workspace, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/workspaces")
      .annotate(OpenApi.Summary, "List workspaces")
      .annotate(OpenApi.Description, "Workspaces the caller owns or holds a membership in.")
      .setUrlParams(PageParams)
      .addSuccess(Page(Workspace))
  )
  .add(
    HttpApiEndpoint.post("createEnvironment", "/workspaces/:wsId/environments")
      .annotate(OpenApi.Summary, "Create an environment")
      .annotate(OpenApi.Description, "Creates an environment in a workspace (workspace owner); the creator becomes its `owner` member.")
      .setPath(wsPath)
      .setPayload(NamePayload)
      .addSuccess(Environment, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("listEnvironments", "/workspaces/:wsId/environments")
      .annotate(OpenApi.Summary, "List environments")
      .annotate(OpenApi.Description, "Environments of the workspace the caller can see.")
      .setPath(wsPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Environment))
  )
  .addError(Forbidden.wire)
  .addError(NotFound.wire)
  .middleware(UserAuthentication)
{}

/** Environment-scoped routes: a session cookie or a `pwk_` key of that environment. */
export class EnvironmentsApi extends HttpApiGroup.make("environments")
  .add(
    HttpApiEndpoint.patch("update", "/environments/:id")
      .annotate(OpenApi.Summary, "Rename an environment")
      .annotate(OpenApi.Description, "admin or higher.")
      .setPath(envPath)
      .setPayload(NamePayload)
      .addSuccess(Environment)
  )
  .add(
    HttpApiEndpoint.del("delete", "/environments/:id")
      .annotate(OpenApi.Summary, "Delete an environment")
      .annotate(OpenApi.Description, "owner only. 409 while any of its runs is active; everything in it goes.")
      .setPath(envPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.get("listMembers", "/environments/:envId/members")
      .annotate(OpenApi.Summary, "List members")
      .annotate(OpenApi.Description, "Members of the environment with their roles (viewer or higher).")
      .setPath(membersPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Member))
  )
  .add(
    HttpApiEndpoint.post("addMember", "/environments/:envId/members")
      .annotate(OpenApi.Summary, "Add a member")
      .annotate(OpenApi.Description, "Adds a user (found with `GET /users/lookup`) with a role; admin or higher, and only owners grant `owner`. 409 when already a member.")
      .setPath(membersPath)
      .setPayload(Payload({ userId: Schema.UUID, role: Role }))
      .addSuccess(Member, { status: 201 })
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.patch("updateMember", "/environments/:envId/members/:userId")
      .annotate(OpenApi.Summary, "Change a member's role")
      .annotate(OpenApi.Description, "admin or higher; only owners touch the `owner` role. 409 when it would leave the environment without an owner.")
      .setPath(memberPath)
      .setPayload(Payload({ role: Role }))
      .addSuccess(Member)
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/environments/:envId/members/:userId")
      .annotate(OpenApi.Summary, "Remove a member")
      .annotate(OpenApi.Description, "admin or higher; only owners remove an owner. 409 for the last owner.")
      .setPath(memberPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(Conflict.wire)
  )
  .addError(Forbidden.wire)
  .addError(NotFound.wire)
  .middleware(Authentication)
{}
