import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../Crypto/Ids.js"
import type { ValidationError } from "../Domain/Errors.js"
import { decodeCursor, page } from "../Domain/Pagination.js"
import type { Environment, Workspace } from "./Api.js"
import { NotWorkspaceOwner, WorkspaceNotFound } from "./TenancyErrors.js"

export interface EnvironmentRow {
  readonly id: string
  readonly workspace_id: string
  readonly name: string
  readonly created_at: Date
  readonly updated_at: Date
}

export const toEnvironment = (row: EnvironmentRow): Environment => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

interface WorkspaceRow {
  readonly id: string
  readonly name: string
  readonly owner_id: string
  readonly created_at: Date
}

const toWorkspace = (row: WorkspaceRow): Workspace => ({
  id: row.id,
  name: row.name,
  ownerId: row.owner_id,
  createdAt: row.created_at
})

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

    const create = (userId: string, name: string): Effect.Effect<Workspace> =>
      sql<WorkspaceRow>`
        INSERT INTO workspaces (id, name, owner_id) VALUES (${uuidv7()}, ${name}, ${userId})
        RETURNING id, name, owner_id, created_at`.pipe(
        Effect.map((rows) => toWorkspace(rows[0]!)),
        Effect.orDie,
        Effect.withSpan("Workspaces.create")
      )

    const list = (userId: string, cursor: string | undefined, limit: number): Effect.Effect<PageOf<Workspace>, ValidationError> =>
      Effect.gen(function*() {
        const after = yield* decodeCursor(cursor)
        const rows = yield* sql<WorkspaceRow>`
          SELECT w.id, w.name, w.owner_id, w.created_at FROM workspaces w
          WHERE ${visibleTo(userId)} ${after === undefined ? sql`` : sql`AND w.id < ${after}`}
          ORDER BY w.id DESC LIMIT ${limit + 1}`.pipe(Effect.orDie)
        const p = page(rows, limit)
        return { items: p.items.map(toWorkspace), nextCursor: p.nextCursor }
      }).pipe(Effect.withSpan("Workspaces.list"))

    /** The workspace's owner when the user can see it; `WorkspaceNotFound` otherwise. */
    const requireVisible = (userId: string, workspaceId: string): Effect.Effect<{ ownerId: string }, WorkspaceNotFound> =>
      Effect.gen(function*() {
        const rows = yield* sql<{ owner_id: string }>`
          SELECT w.owner_id FROM workspaces w WHERE w.id = ${workspaceId} AND ${visibleTo(userId)}`.pipe(Effect.orDie)
        const row = rows[0]
        if (!row) return yield* Effect.fail(new WorkspaceNotFound({ workspaceId }))
        return { ownerId: row.owner_id }
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
          const rows = yield* sql<EnvironmentRow>`
            INSERT INTO environments (id, workspace_id, name) VALUES (${id}, ${workspaceId}, ${name})
            RETURNING id, workspace_id, name, created_at, updated_at`
          yield* sql`INSERT INTO members (environment_id, user_id, role) VALUES (${id}, ${userId}, 'owner')`
          return toEnvironment(rows[0]!)
        }).pipe(sql.withTransaction, Effect.orDie)
      }).pipe(Effect.withSpan("Workspaces.createEnvironment"))

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
        const rows = yield* sql<EnvironmentRow>`
          SELECT e.id, e.workspace_id, e.name, e.created_at, e.updated_at
          FROM environments e JOIN members m ON m.environment_id = e.id AND m.user_id = ${userId}
          WHERE e.workspace_id = ${workspaceId} ${after === undefined ? sql`` : sql`AND e.id < ${after}`}
          ORDER BY e.id DESC LIMIT ${limit + 1}`.pipe(Effect.orDie)
        const p = page(rows, limit)
        return { items: p.items.map(toEnvironment), nextCursor: p.nextCursor }
      }).pipe(Effect.withSpan("Workspaces.listEnvironments"))

    return { create, list, requireVisible, createEnvironment, listEnvironments } as const
  })
}) {}
