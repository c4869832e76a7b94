import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** After this many failures within the window, the email is locked for `lockSeconds`. */
export const maxFailures = 5
const windowSeconds = 15 * 60
const lockSeconds = 15 * 60

/**
 * Login throttling per email, kept in the database so every instance sees the
 * same count. Unknown emails are throttled too, so 429 reveals nothing.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("Auth/LoginThrottle", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const lock = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ locked: Schema.Boolean }),
      execute: (email) =>
        sql`SELECT locked_until IS NOT NULL AND locked_until > now() AS locked
            FROM login_failures WHERE email = ${email}`
    })

    const isLocked = (email: string): Effect.Effect<boolean> =>
      lock(email).pipe(
        Effect.map(Option.exists((row) => row.locked)),
        Effect.orDie
      )

    const recordFailure = (email: string): Effect.Effect<void> =>
      sql`
        INSERT INTO login_failures (email, failures, window_started_at) VALUES (${email}, 1, now())
        ON CONFLICT (email) DO UPDATE SET
          failures = CASE WHEN login_failures.window_started_at < now() - make_interval(secs => ${windowSeconds})
                          THEN 1 ELSE login_failures.failures + 1 END,
          window_started_at = CASE WHEN login_failures.window_started_at < now() - make_interval(secs => ${windowSeconds})
                          THEN now() ELSE login_failures.window_started_at END,
          locked_until = CASE WHEN login_failures.window_started_at >= now() - make_interval(secs => ${windowSeconds})
                               AND login_failures.failures + 1 >= ${maxFailures}
                          THEN now() + make_interval(secs => ${lockSeconds}) ELSE login_failures.locked_until END`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const reset = (email: string): Effect.Effect<void> =>
      sql`DELETE FROM login_failures WHERE email = ${email}`.pipe(Effect.asVoid, Effect.orDie)

    return { isLocked, recordFailure, reset } as const
  })
}) {}
