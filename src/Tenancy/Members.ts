import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Actor, CurrentActor } from "../Contract/Security.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { Policy } from "./Policy.js"
import {
  AlreadyMember,
  type InsufficientRole,
  LastOwner,
  MemberNotFound,
  type NotVisible,
  OwnerRoleReserved,
  UserNotFound
} from "./TenancyErrors.js"
import { Role } from "../Contract/Domain/Schemas.js"
import type { Member } from "../Contract/TenancyApi.js"
import { isUuid } from "../Contract/Domain/Uuids.js"

/**
 * A membership joined with its user, decoded into the API's `Member` plus
 * `position`: created_at in microseconds since the epoch, as text, the exact
 * keyset position.
 */
const MemberRow = Schema.Struct({
  user_id: Schema.String,
  email: Schema.String,
  role: Role,
  created_at: Schema.DateFromSelf,
  position: Schema.String
}).pipe(Schema.rename({ user_id: "userId", created_at: "createdAt" }))
type MemberRow = typeof MemberRow.Type

const toMember = ({ position: _, ...member }: MemberRow): Member => member

// Members have no id of their own: the cursor is (created_at in µs, user_id),
// which is unique and stable while members are added.
const encodeCursor = (row: MemberRow): string => Buffer.from(`${row.position}.${row.userId}`, "utf8").toString("base64url")

const decodeCursor = (cursor: string | undefined): Effect.Effect<{ position: string; userId: string } | undefined, ValidationError> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const match = /^(\d{1,18})\.(.+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (match && isUuid(match[2]!)) return Effect.succeed({ position: match[1]!, userId: match[2]! })
  return Effect.fail(ValidationError.field("cursor", "invalid cursor"))
}


/**
 * Memberships of an environment. Every change locks the environment's member
 * rows first, so two concurrent demotions cannot both pass the last-owner check.
 */
export class Members extends Effect.Service<Members>()("Tenancy/Members", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    const policy = yield* Policy

    const select = sql`
      SELECT m.user_id, u.email, m.role, m.created_at,
             (extract(epoch FROM m.created_at) * 1000000)::bigint::text AS position
      FROM members m JOIN users u ON u.id = m.user_id`

    const page = SqlSchema.findAll({
      Request: Schema.Struct({
        environmentId: Schema.String,
        after: Schema.UndefinedOr(Schema.Struct({ position: Schema.String, userId: Schema.String })),
        limit: Schema.Number
      }),
      Result: MemberRow,
      execute: ({ after, environmentId, limit }) =>
        sql`${select} WHERE m.environment_id = ${environmentId}
          ${after === undefined ? sql`` : sql`AND ((extract(epoch FROM m.created_at) * 1000000)::bigint, m.user_id)
            < (${after.position}::bigint, ${after.userId}::uuid)`}
          ORDER BY m.created_at DESC, m.user_id DESC LIMIT ${limit + 1}`
    })

    const list = (
      environmentId: string,
      cursor: string | undefined,
      limit: number
    ): Effect.Effect<{ items: ReadonlyArray<Member>; nextCursor: string | null }, ValidationError | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(environmentId, "viewer")
        const after = yield* decodeCursor(cursor)
        const rows = yield* Effect.orDie(page({ environmentId, after, limit }))
        const items = rows.slice(0, limit)
        return {
          items: items.map(toMember),
          nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]!) : null
        }
      }).pipe(Effect.withSpan("Members.list"))

    /** Locks every member row of the environment; answers the roles and the caller's own role. */
    const lockedRoles = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ user_id: Schema.String, role: Role }),
      execute: (environmentId) => sql`SELECT user_id, role FROM members WHERE environment_id = ${environmentId} FOR UPDATE`
    })

    const lockRoles = (environmentId: string, actor: Actor) =>
      Effect.gen(function*() {
        const rows = yield* Effect.orDie(lockedRoles(environmentId))
        const roles = new Map(rows.map((r) => [r.user_id, r.role]))
        const callerRole: Role | undefined = actor._tag !== "User" ? actor.role : roles.get(actor.userId)
        const owners = rows.filter((r) => r.role === "owner").length
        return { roles, callerIsOwner: callerRole === "owner", owners }
      })

    const member = SqlSchema.single({
      Request: Schema.Struct({ environmentId: Schema.String, userId: Schema.String }),
      Result: MemberRow,
      execute: ({ environmentId, userId }) => sql`${select} WHERE m.environment_id = ${environmentId} AND m.user_id = ${userId}`
    })

    // Within the change's transaction, which has just written the row.
    const findOne = (environmentId: string, userId: string) => Effect.map(Effect.orDie(member({ environmentId, userId })), toMember)

    const add = (
      actor: Actor,
      environmentId: string,
      userId: string,
      role: Role
    ): Effect.Effect<Member, OwnerRoleReserved | UserNotFound | AlreadyMember | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(environmentId, "admin")
        const locked = yield* lockRoles(environmentId, actor)
        if (role === "owner" && !locked.callerIsOwner) return yield* Effect.fail(new OwnerRoleReserved())
        const user = yield* sql`SELECT 1 FROM users WHERE id = ${userId}`
        if (user.length === 0) return yield* Effect.fail(new UserNotFound({ userId }))
        // ON CONFLICT rather than the locked map: a concurrent add of the same user is a new row the lock cannot see.
        const inserted = yield* sql`
          INSERT INTO members (environment_id, user_id, role) VALUES (${environmentId}, ${userId}, ${role})
          ON CONFLICT (environment_id, user_id) DO NOTHING RETURNING user_id`
        if (inserted.length === 0) return yield* Effect.fail(new AlreadyMember({ userId }))
        yield* audit.record({ environmentId, actor, action: "member.added", targetType: "user", targetId: userId, metadata: { role } })
        return yield* findOne(environmentId, userId)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Members.add"))

    const changeRole = (
      actor: Actor,
      environmentId: string,
      userId: string,
      role: Role
    ): Effect.Effect<Member, MemberNotFound | OwnerRoleReserved | LastOwner | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(environmentId, "admin")
        const locked = yield* lockRoles(environmentId, actor)
        // The map is keyed by the database's lower-case spelling of the id.
        const current = locked.roles.get(userId.toLowerCase())
        if (current === undefined) return yield* Effect.fail(new MemberNotFound({ userId }))
        if ((current === "owner" || role === "owner") && !locked.callerIsOwner && current !== role) {
          return yield* Effect.fail(new OwnerRoleReserved())
        }
        if (current === role) return yield* findOne(environmentId, userId)
        if (current === "owner" && locked.owners <= 1) return yield* Effect.fail(new LastOwner())
        yield* sql`UPDATE members SET role = ${role} WHERE environment_id = ${environmentId} AND user_id = ${userId}`
        yield* audit.record({
          environmentId,
          actor,
          action: "member.role_changed",
          targetType: "user",
          targetId: userId,
          metadata: { from: current, to: role }
        })
        return yield* findOne(environmentId, userId)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Members.changeRole"))

    const remove = (
      actor: Actor,
      environmentId: string,
      userId: string
    ): Effect.Effect<void, MemberNotFound | OwnerRoleReserved | LastOwner | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(environmentId, "admin")
        const locked = yield* lockRoles(environmentId, actor)
        // The map is keyed by the database's lower-case spelling of the id.
        const current = locked.roles.get(userId.toLowerCase())
        if (current === undefined) return yield* Effect.fail(new MemberNotFound({ userId }))
        if (current === "owner" && !locked.callerIsOwner) return yield* Effect.fail(new OwnerRoleReserved())
        if (current === "owner" && locked.owners <= 1) return yield* Effect.fail(new LastOwner())
        yield* sql`DELETE FROM members WHERE environment_id = ${environmentId} AND user_id = ${userId}`
        yield* audit.record({
          environmentId,
          actor,
          action: "member.removed",
          targetType: "user",
          targetId: userId,
          metadata: { role: current }
        })
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Members.remove"))

    return { list, add, changeRole, remove } as const
  }),
  dependencies: [AuditLog.Default, Policy.Default]
}) {}
