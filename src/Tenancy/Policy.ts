import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { CurrentActor, type Actor } from "../Auth/Security.js"
import { Forbidden, NotFound } from "../Domain/Errors.js"
import { type Role, roleAtLeast } from "../Domain/Schemas.js"

/**
 * Access to an environment and everything in it is by membership of that
 * environment alone (or by an API key of that environment). Not visible → 404,
 * visible but below the role → 403, so existence never leaks.
 */
export class Policy extends Effect.Service<Policy>()("Tenancy/Policy", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The caller's role in the environment, or None when it cannot see it. The id is a decoded path id or a stored one. */
    const roleIn = (actor: Actor, environmentId: string): Effect.Effect<Role | undefined> => {
      if (actor._tag === "ApiKey" || actor._tag === "Mcp") {
        // UUIDs are case-insensitive in Postgres; compare them the same way here.
        return Effect.succeed(actor.environmentId === environmentId.toLowerCase() ? actor.role : undefined)
      }
      return sql<{ role: Role }>`
        SELECT role FROM members WHERE environment_id = ${environmentId} AND user_id = ${actor.userId}`.pipe(
        Effect.map((rows) => rows[0]?.role),
        Effect.orDie
      )
    }

    /**
     * Succeeds with the caller's role when it is at least `min`; `what` names
     * the resource in the 404 (e.g. "trigger" when the environment came from one).
     */
    const requireRole = (
      environmentId: string,
      min: Role,
      what = "environment"
    ): Effect.Effect<Role, NotFound | Forbidden, CurrentActor> =>
      Effect.gen(function*() {
        const actor = yield* CurrentActor
        const role = yield* roleIn(actor, environmentId)
        if (role === undefined) return yield* Effect.fail(NotFound.of(what))
        if (!roleAtLeast(role, min)) return yield* Effect.fail(Forbidden.role)
        return role
      })

    return { roleIn, requireRole } as const
  })
}) {}
