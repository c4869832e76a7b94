import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CurrentActor, type Actor } from "../Contract/Security.js"
import { Role, roleAtLeast } from "../Contract/Domain/Schemas.js"
import { InsufficientRole, NotVisible } from "./TenancyErrors.js"

/**
 * Access to an environment and everything in it is by membership of that
 * environment alone (or by an API key of that environment). Not visible
 * (`NotVisible`, answered 404) or visible but below the role
 * (`InsufficientRole`, answered 403), so existence never leaks.
 */
export class Policy extends Effect.Service<Policy>()("Tenancy/Policy", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const membership = SqlSchema.findOne({
      Request: Schema.Struct({ environmentId: Schema.String, userId: Schema.String }),
      Result: Schema.Struct({ role: Role }),
      execute: ({ environmentId, userId }) =>
        sql`SELECT role FROM members WHERE environment_id = ${environmentId} AND user_id = ${userId}`
    })

    /** The caller's role in the environment, or None when it cannot see it. The id is a decoded path id or a stored one. */
    const roleIn = (actor: Actor, environmentId: string): Effect.Effect<Role | undefined> => {
      if (actor._tag === "ApiKey" || actor._tag === "Mcp") {
        // UUIDs are case-insensitive in Postgres; compare them the same way here.
        return Effect.succeed(actor.environmentId === environmentId.toLowerCase() ? actor.role : undefined)
      }
      return membership({ environmentId, userId: actor.userId }).pipe(
        Effect.map(Option.match({ onNone: () => undefined, onSome: (member) => member.role })),
        Effect.orDie
      )
    }

    /**
     * Succeeds with the caller's role when it is at least `min`; `what` names
     * the resource the caller cannot see (e.g. "trigger" when the environment came from one).
     */
    const requireRole = (
      environmentId: string,
      min: Role,
      what = "environment"
    ): Effect.Effect<Role, NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        const actor = yield* CurrentActor
        const role = yield* roleIn(actor, environmentId)
        if (role === undefined) return yield* Effect.fail(new NotVisible({ environmentId, what }))
        if (!roleAtLeast(role, min)) return yield* Effect.fail(new InsufficientRole({ environmentId, required: min, actual: role }))
        return role
      })

    return { roleIn, requireRole } as const
  })
}) {}
