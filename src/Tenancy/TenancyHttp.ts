import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Contract/Api.js"
import { CurrentActor } from "../Contract/Security.js"
import { Unauthorized } from "../Contract/Domain/ApiErrors.js"
import { defaultLimit } from "../Db/Pagination.js"
import { Environments } from "./Environments.js"
import { Members } from "./Members.js"
import { answerTenancyErrors as answer } from "./TenancyWireErrors.js"
import { Workspaces } from "./Workspaces.js"

/** Workspace routes sit behind `UserAuthentication`, so the actor is always a user. */
const currentUserId = Effect.flatMap(CurrentActor, (actor) =>
  actor._tag === "User" ? Effect.succeed(actor.userId) : Effect.fail(Unauthorized.default))

export const WorkspacesLive = HttpApiBuilder.group(Api, "workspaces", (handlers) =>
  Effect.gen(function*() {
    const workspaces = yield* Workspaces
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(currentUserId, (userId) => workspaces.create(userId, payload.name)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(currentUserId, (userId) => workspaces.list(userId, urlParams.cursor, urlParams.limit ?? defaultLimit)))
      .handle("createEnvironment", ({ path, payload }) =>
        Effect.flatMap(currentUserId, (userId) => answer(workspaces.createEnvironment(userId, path.wsId, payload.name))))
      .handle("listEnvironments", ({ path, urlParams }) =>
        Effect.flatMap(currentUserId, (userId) =>
          answer(workspaces.listEnvironments(userId, path.wsId, urlParams.cursor, urlParams.limit ?? defaultLimit))))
  }))

// Each service checks the caller's role itself (see Policy).
export const EnvironmentsLive = HttpApiBuilder.group(Api, "environments", (handlers) =>
  Effect.gen(function*() {
    const environments = yield* Environments
    const members = yield* Members
    return handlers
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          return yield* answer(environments.rename(yield* CurrentActor, path.id, payload.name))
        }))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          yield* answer(environments.remove(path.id))
        }))
      .handle("listMembers", ({ path, urlParams }) =>
        Effect.gen(function*() {
          return yield* answer(members.list(path.envId, urlParams.cursor, urlParams.limit ?? defaultLimit))
        }))
      .handle("addMember", ({ path, payload }) =>
        Effect.gen(function*() {
          return yield* answer(members.add(yield* CurrentActor, path.envId, payload.userId, payload.role))
        }))
      .handle("updateMember", ({ path, payload }) =>
        Effect.gen(function*() {
          return yield* answer(members.changeRole(yield* CurrentActor, path.envId, path.userId, payload.role))
        }))
      .handle("removeMember", ({ path }) =>
        Effect.gen(function*() {
          yield* answer(members.remove(yield* CurrentActor, path.envId, path.userId))
        }))
  }))

export const TenancyLive = Layer.mergeAll(WorkspacesLive, EnvironmentsLive)
