import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Forbidden, Unauthorized } from "../Contract/Domain/ApiErrors.js"
import { sha256 } from "../Crypto/Tokens.js"
import { isUnsafeMethod, Origins } from "../Http/Origins.js"
import { Authentication, UserAuthentication, WorkerAuthentication, type Actor, type WorkerIdentity } from "../Contract/Security.js"
import { Sessions } from "./Sessions.js"
import { WorkerTokenTrust } from "./WorkerTokenTrust.js"
import { ApiKeys } from "../ApiKeys/ApiKeys.js"

// HttpApiBuilder decodes a missing credential as an empty Redacted: reject it explicitly.
const present = (token: Redacted.Redacted<string>): Option.Option<string> => {
  const value = Redacted.value(token).trim()
  return value.length > 0 ? Option.some(value) : Option.none()
}

const makeCookieAuth = Effect.gen(function*() {
  const sessions = yield* Sessions
  const origins = yield* Origins
  return (token: Redacted.Redacted<string>): Effect.Effect<Actor, Unauthorized | Forbidden, HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function*() {
      const value = present(token)
      if (Option.isNone(value)) return yield* Effect.fail(Unauthorized.default)
      const session = yield* sessions.authenticate(value.value)
      if (Option.isNone(session)) return yield* Effect.fail(new Unauthorized({ error: "session invalid or expired" }))
      // Cookies ride along on cross-site requests; a mutation must prove it came from an allowed origin.
      const request = yield* HttpServerRequest.HttpServerRequest
      if (isUnsafeMethod(request.method) && !origins.isAllowed(request.headers["origin"])) {
        return yield* Effect.fail(new Forbidden({ error: "origin not allowed for cookie-authenticated requests" }))
      }
      return { _tag: "User", userId: session.value.userId, sessionHash: session.value.sessionHash } as const
    })
})

const makeApiKeyAuth = Effect.gen(function*() {
  const keys = yield* ApiKeys
  return (token: Redacted.Redacted<string>): Effect.Effect<Actor, Unauthorized> =>
    Effect.gen(function*() {
      const value = present(token)
      if (Option.isNone(value) || !value.value.startsWith("pwk_")) return yield* Effect.fail(Unauthorized.default)
      const key = yield* keys.authenticate(value.value)
      if (Option.isNone(key)) return yield* Effect.fail(new Unauthorized({ error: "invalid API key" }))
      return { _tag: "ApiKey", ...key.value } as const
    })
})

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const cookie = yield* makeCookieAuth
    const bearer = yield* makeApiKeyAuth
    const request = HttpServerRequest.HttpServerRequest
    return Authentication.of({
      bearer,
      cookie: (token) => Effect.flatMap(request, (r) => Effect.provideService(cookie(token), request, r))
    })
  })
)

export const layerUser = Layer.effect(
  UserAuthentication,
  Effect.gen(function*() {
    const cookie = yield* makeCookieAuth
    const request = HttpServerRequest.HttpServerRequest
    return UserAuthentication.of({
      cookie: (token) => Effect.flatMap(request, (r) => Effect.provideService(cookie(token), request, r))
    })
  })
)

export { workerTokenTrustMillis } from "./WorkerTokenTrust.js"

export const layerWorker = Layer.effect(
  WorkerAuthentication,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A busy worker makes three or more calls per run; verifying each against
    // the database was a statement per call. A token verified in the last
    // second is trusted as it was: the statement below still runs at least
    // once a second per busy worker, which is also how often its contact is
    // recorded. A deleted worker's token may so pass for up to a second (and
    // one round trip) on an instance that just verified it; every step it
    // could take is scoped by its worker id in SQL, so it finds nothing. A
    // revoked worker's token is forgotten by every instance when the
    // revocation commits (`WorkerTokenTrust`), and never verified again.
    const trusted = (yield* WorkerTokenTrust).tokens
    return WorkerAuthentication.of({
      bearer: (token) =>
        Effect.gen(function*() {
          const value = present(token)
          if (Option.isNone(value) || !value.value.startsWith("wkt_")) return yield* Effect.fail(Unauthorized.default)
          const hash = sha256(value.value)
          const now = yield* Clock.currentTimeMillis
          const known = trusted.trusted(hash, now)
          if (known !== undefined) return known
          // Every authenticated call is contact: it keeps the worker online. The
          // write is debounced to once a second (online means seen within
          // WORKER_OFFLINE_AFTER_SECONDS), so a busy worker's calls are reads:
          // no WAL per request and no row-lock queue between its concurrent calls.
          // On the scheduler's clock, as placement and the worker list read it.
          const seenAt = new Date(now).toISOString()
          const rows = yield* sql<{ id: string; environment_id: string; workspace_id: string }>`
            WITH w AS (
              SELECT id, environment_id, workspace_id, last_seen_at < ${seenAt}::timestamptz - interval '1 second' AS stale
              FROM workers WHERE token_hash = ${hash} AND revoked_at IS NULL
            ), seen AS (
              UPDATE workers SET last_seen_at = ${seenAt}::timestamptz FROM w WHERE workers.id = w.id AND w.stale
            )
            SELECT id, environment_id, workspace_id FROM w`.pipe(Effect.orDie)
          const row = rows[0]
          if (!row) {
            trusted.forget(hash)
            return yield* Effect.fail(new Unauthorized({ error: "invalid worker token" }))
          }
          const identity = { workerId: row.id, environmentId: row.environment_id, workspaceId: row.workspace_id } satisfies WorkerIdentity
          trusted.remember(hash, identity, now)
          return identity
        })
    })
  })
)
