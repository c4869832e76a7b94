import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { AppConfig } from "../Config/AppConfig.js"
import { sha256 } from "../Crypto/Tokens.js"
import * as Jwt from "./Jwt.js"

export const sessionMaxAgeSeconds = 604800

/**
 * Server-side sessions behind the JWT cookie: the token names a session id,
 * stored only as its SHA-256, so logout (deleting the row) revokes the token
 * even though its signature stays valid.
 */
export class Sessions extends Effect.Service<Sessions>()("Auth/Sessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const key = Redacted.value(config.jwtSecret)

    const liveSession = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ user_id: Schema.String }),
      execute: (sessionHash) => sql`SELECT user_id FROM sessions WHERE id_hash = ${sessionHash} AND expires_at > now()`
    })

    const create = (userId: string): Effect.Effect<string> =>
      Effect.gen(function*() {
        const sid = randomBytes(32).toString("base64url")
        const now = Math.floor(Date.now() / 1000)
        const expiresAt = new Date((now + sessionMaxAgeSeconds) * 1000)
        yield* sql`INSERT INTO sessions (id_hash, user_id, expires_at) VALUES (${sha256(sid)}, ${userId}, ${expiresAt})`
          .pipe(Effect.orDie)
        return Jwt.sign(key, { sub: userId, sid, iat: now, exp: now + sessionMaxAgeSeconds })
      }).pipe(Effect.withSpan("Sessions.create"))

    const authenticate = (token: string): Effect.Effect<Option.Option<{ userId: string; sessionHash: string }>> =>
      Effect.gen(function*() {
        const claims = Jwt.verify(key, token, Math.floor(Date.now() / 1000))
        if (!claims) return Option.none()
        const sessionHash = sha256(claims.sid)
        const session = yield* Effect.orDie(liveSession(sessionHash))
        return Option.isSome(session) && session.value.user_id === claims.sub
          ? Option.some({ userId: session.value.user_id, sessionHash })
          : Option.none()
      })

    const revoke = (sessionHash: string): Effect.Effect<void> =>
      sql`DELETE FROM sessions WHERE id_hash = ${sessionHash}`.pipe(Effect.asVoid, Effect.orDie)

    const cookie = (token: string, maxAge = sessionMaxAgeSeconds): string =>
      `auth_token=${token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAge}${config.cookieSecure ? "; Secure" : ""}`

    return { create, authenticate, revoke, cookie, clearCookie: cookie("", 0) } as const
  })
}) {}
