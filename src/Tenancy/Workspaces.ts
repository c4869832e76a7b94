import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../Crypto/Ids.js"
import type { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { decodeCursor, page } from "../Db/Pagination.js"
import type { Environment, Workspace } from "../Contract/TenancyApi.js"
import { NotWorkspaceOwner, WorkspaceNotFound } from "./TenancyErrors.js"

/**
 * An `environments` row (its columns as the database answers them), decoded
 * into the API's `Environment`.
 */
export const EnvironmentRow: Schema.Schema<Environment, {
  readonly id: string
  readonly workspace_id: string
  readonly name: string
  readonly created_at: Date
  readonly updated_at: Date
}> = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
}).pipe(Schema.rename({ workspace_id: "workspaceId", created_at: "createdAt", updated_at: "updatedAt" }))

/** A `workspaces` row, decoded into the API's `Workspace`. */
const WorkspaceRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  owner_id: Schema.String,
  created_at: Schema.DateFromSelf
}).pipe(Schema.rename({ owner_id: "ownerId", created_at: "createdAt" }))

type PageOf<A> = { items: ReadonlyArray<A>; nextCursor: string | null }

/**
 * Workspaces and the environments in them. A workspace is visible to its owner
 * and to anyone with a membership in one of its environments; everyone else
 * gets 404, so existence never leaks.
 */
export class Workspaces extends Effect.Service<Workspaces>()("Tenancy/Workspaces", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const visibleTo = (userId: string) =>
      sql`(w.owner_id = ${userId} OR EXISTS (
        SELECT 1 FROM environments e JOIN members m ON m.environment_id = e.id
        WHERE e.workspace_id = w.id AND m.user_id = ${userId}))`

    const insertWorkspace = SqlSchema.single({
      Request: Schema.Struct({ userId: Schema.String, name: Schema.String }),
      Result: WorkspaceRow,
      execute: ({ name, userId }) =>
        sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${uuidv7()}, ${name}, ${userId})
            RETURNING id, name, owner_id, created_at`
    })

    const create = (userId: string, name: string): Effect.Effect<Workspace> =>
      insertWorkspace({ userId, name }).pipe(Effect.orDie, Effect.withSpan("Workspaces.create"))

    // `after`: the keyset cursor (see Db/Pagination); `limit + 1` rows tell whether a next page exists.
    const PageRequest = Schema.Struct({ userId: Schema.String, after: Schema.UndefinedOr(Schema.String), limit: Schema.Number })

    const visibleWorkspaces = SqlSchema.findAll({
      Request: PageRequest,
      Result: WorkspaceRow,
      execute: ({ after, limit, userId }) =>
        sql`SELECT w.id, w.name, w.owner_id, w.created_at FROM workspaces w
            WHERE ${visibleTo(userId)} ${after === undefined ? sql`` : sql`AND w.id < ${after}`}
            ORDER BY w.id DESC LIMIT ${limit + 1}`
    })

    const list = (userId: string, cursor: string | undefined, limit: number): Effect.Effect<PageOf<Workspace>, ValidationError> =>
      Effect.gen(function*() {
        const after = yield* decodeCursor(cursor)
        const rows = yield* Effect.orDie(visibleWorkspaces({ userId, after, limit }))
        return page(rows, limit)
      }).pipe(Effect.withSpan("Workspaces.list"))

    const ownerIfVisible = SqlSchema.findOne({
      Request: Schema.Struct({ userId: Schema.String, workspaceId: Schema.String }),
      Result: Schema.Struct({ owner_id: Schema.String }).pipe(Schema.rename({ owner_id: "ownerId" })),
      execute: ({ userId, workspaceId }) =>
        sql`SELECT w.owner_id FROM workspaces w WHERE w.id = ${workspaceId} AND ${visibleTo(userId)}`
    })

    /** The workspace's owner when the user can see it; `WorkspaceNotFound` otherwise. */
    const requireVisible = (userId: string, workspaceId: string): Effect.Effect<{ ownerId: string }, WorkspaceNotFound> =>
      ownerIfVisible({ userId, workspaceId }).pipe(
        Effect.orDie,
        Effect.flatten,
        Effect.catchTag("NoSuchElementException", () => Effect.fail(new WorkspaceNotFound({ workspaceId })))
      )

    const insertEnvironment = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, workspaceId: Schema.String, name: Schema.String }),
      Result: EnvironmentRow,
      execute: ({ id, name, workspaceId }) =>
        sql`INSERT INTO environments (id, workspace_id, name) VALUES (${id}, ${workspaceId}, ${name})
            RETURNING id, workspace_id, name, created_at, updated_at`
    })

    const addOwner = SqlSchema.void({
      Request: Schema.Struct({ environmentId: Schema.String, userId: Schema.String }),
      execute: ({ environmentId, userId }) =>
        sql`INSERT INTO members (environment_id, user_id, role) VALUES (${environmentId}, ${userId}, 'owner')`
    })

    /** Only the workspace owner creates environments; the creator becomes the environment's first owner. */
    const createEnvironment = (
      userId: string,
      workspaceId: string,
      name: string
    ): Effect.Effect<Environment, WorkspaceNotFound | NotWorkspaceOwner> =>
      Effect.gen(function*() {
        const ws = yield* requireVisible(userId, workspaceId)
        if (ws.ownerId !== userId) {
          return yield* Effect.fail(new NotWorkspaceOwner({ workspaceId }))
        }
        const id = uuidv7()
        return yield* Effect.gen(function*() {
          const environment = yield* insertEnvironment({ id, workspaceId, name })
          yield* addOwner({ environmentId: id, userId })
          return environment
        }).pipe(sql.withTransaction, Effect.orDie)
      }).pipe(Effect.withSpan("Workspaces.createEnvironment"))

    const memberEnvironments = SqlSchema.findAll({
      Request: Schema.Struct({ ...PageRequest.fields, workspaceId: Schema.String }),
      Result: EnvironmentRow,
      execute: ({ after, limit, userId, workspaceId }) =>
        sql`SELECT e.id, e.workspace_id, e.name, e.created_at, e.updated_at
            FROM environments e JOIN members m ON m.environment_id = e.id AND m.user_id = ${userId}
            WHERE e.workspace_id = ${workspaceId} ${after === undefined ? sql`` : sql`AND e.id < ${after}`}
            ORDER BY e.id DESC LIMIT ${limit + 1}`
    })

    /** The environments of the workspace the user is a member of (owning the workspace alone grants none). */
    const listEnvironments = (
      userId: string,
      workspaceId: string,
      cursor: string | undefined,
      limit: number
    ): Effect.Effect<PageOf<Environment>, WorkspaceNotFound | ValidationError> =>
      Effect.gen(function*() {
        yield* requireVisible(userId, workspaceId)
        const after = yield* decodeCursor(cursor)
        const rows = yield* Effect.orDie(memberEnvironments({ userId, workspaceId, after, limit }))
        return page(rows, limit)
      }).pipe(Effect.withSpan("Workspaces.listEnvironments"))

    return { create, list, requireVisible, createEnvironment, listEnvironments } as const
  })
}) {}
