import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"
import type { Actor } from "../Contract/Security.js"
import * as TrustedTokens from "../Auth/TrustedTokens.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { generate, sha256, tokenStart } from "../Crypto/Tokens.js"
import type { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { ApiKeyNotFound } from "./ApiKeyErrors.js"
import { Role } from "../Contract/Domain/Schemas.js"
import { decodeCursor, page } from "../Db/Pagination.js"
import { type ApiKey, KeyRole } from "../Contract/ApiKeysApi.js"

const Prefix = Schema.Literal("pwk", "wrk")

/** An `api_keys` row as listed (never its hash), decoded into the API's `ApiKey`. */
const ApiKeyRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  prefix: Prefix,
  role: Schema.NullOr(KeyRole),
  token_start: Schema.String,
  created_at: Schema.DateFromSelf,
  last_used_at: Schema.NullOr(Schema.DateFromSelf),
  consumed_at: Schema.NullOr(Schema.DateFromSelf)
}).pipe(Schema.rename({ token_start: "tokenStart", created_at: "createdAt", last_used_at: "lastUsedAt", consumed_at: "consumedAt" }))

export interface NewKey {
  readonly name: string
  readonly prefix: "pwk" | "wrk"
  readonly role: KeyRole | null
}

/**
 * `pwk_` API keys and single-use `wrk_` registration tokens of an environment.
 * The token exists in plain text only in the creation response: the table
 * keeps its SHA-256 (for lookups) and its first characters (for listings).
 */
/** What a verified `pwk_` key lets its caller act as. */
export interface KeyIdentity {
  readonly keyId: string
  readonly environmentId: string
  readonly role: Role
}

const forgetChannel = "pts_api_keys_forget"

/** How long a verified `pwk_` key is trusted on this instance without asking the database again. */
export const apiKeyTrustMillis = 1000

export class ApiKeys extends Effect.Service<ApiKeys>()("ApiKeys/Repo", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    const notifications = yield* Notifications
    const trusted = TrustedTokens.make<KeyIdentity>(apiKeyTrustMillis)

    // A deleted key (or every key of a deleted environment) is forgotten on
    // every instance as soon as the NOTIFY arrives (milliseconds), not after the
    // trust window: the payload names what to forget, never a token. Should the
    // LISTEN connection be down, the trust window (1 s) still bounds it.
    const forgetNotified = (payload: string) =>
      Effect.sync(() => {
        const [kind, id] = payload.split(":")
        trusted.forgetWhere((key) => (kind === "key" ? key.keyId === id : key.environmentId === id))
      })
    yield* notifications.listen(forgetChannel).pipe(
      Stream.runForEach(forgetNotified),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for deleted keys failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    const announce = (payload: string) =>
      Effect.zipRight(forgetNotified(payload), Effect.ignore(notifications.notify(forgetChannel, payload)))

    const keyByHash = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, environment_id: Schema.String, role: Role, stale: Schema.Boolean }),
      execute: (hash) =>
        sql`SELECT id, environment_id, role,
                   (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds') AS stale
            FROM api_keys WHERE token_hash = ${hash} AND prefix = 'pwk'`
    })

    /** The key a `pwk_` token is, if it is one (the token is looked up by its SHA-256). */
    const authenticate = (token: string): Effect.Effect<Option.Option<KeyIdentity>> =>
      Effect.gen(function*() {
        const hash = sha256(token)
        const now = yield* Clock.currentTimeMillis
        const known = trusted.trusted(hash, now)
        if (known !== undefined) return Option.some(known)
        const found = yield* Effect.orDie(keyByHash(hash))
        if (Option.isNone(found)) {
          trusted.forget(hash)
          return Option.none()
        }
        const key = found.value
        // lastUsedAt has minute precision, so a busy key costs one write a minute, not one per request.
        if (key.stale) yield* sql`UPDATE api_keys SET last_used_at = now() WHERE id = ${key.id}`.pipe(Effect.orDie)
        const identity: KeyIdentity = { keyId: key.id, environmentId: key.environment_id, role: key.role }
        trusted.remember(hash, identity, now)
        return Option.some(identity)
      })

    const keysPage = SqlSchema.findAll({
      Request: Schema.Struct({ environmentId: Schema.String, after: Schema.UndefinedOr(Schema.String), limit: Schema.Number }),
      Result: ApiKeyRow,
      execute: ({ after, environmentId, limit }) =>
        sql`SELECT id, name, prefix, role, token_start, created_at, last_used_at, consumed_at FROM api_keys
            WHERE environment_id = ${environmentId} ${after === undefined ? sql`` : sql`AND id < ${after}`}
            ORDER BY id DESC LIMIT ${limit + 1}`
    })

    const list = (
      environmentId: string,
      cursor: string | undefined,
      limit: number
    ): Effect.Effect<{ items: ReadonlyArray<ApiKey>; nextCursor: string | null }, ValidationError> =>
      Effect.gen(function*() {
        const after = yield* decodeCursor(cursor)
        const rows = yield* Effect.orDie(keysPage({ environmentId, after, limit }))
        return page(rows, limit)
      }).pipe(Effect.withSpan("ApiKeys.list"))

    const inserted = SqlSchema.single({
      Request: Schema.Struct({
        environmentId: Schema.String,
        name: Schema.String,
        prefix: Prefix,
        role: Schema.NullOr(KeyRole),
        tokenHash: Schema.String,
        tokenStart: Schema.String,
        createdBy: Schema.NullOr(Schema.String)
      }),
      Result: Schema.Struct({ id: Schema.String, created_at: Schema.DateFromSelf }),
      execute: (key) =>
        sql`INSERT INTO api_keys (id, environment_id, name, prefix, role, token_hash, token_start, created_by)
            VALUES (${uuidv7()}, ${key.environmentId}, ${key.name}, ${key.prefix}, ${key.role}, ${key.tokenHash},
                    ${key.tokenStart}, ${key.createdBy})
            RETURNING id, created_at`
    })

    const create = (
      actor: Actor,
      environmentId: string,
      key: NewKey
    ): Effect.Effect<{ id: string; name: string; prefix: "pwk" | "wrk"; role: KeyRole | null; token: string; createdAt: Date }> =>
      Effect.gen(function*() {
        const token = generate(key.prefix)
        const createdBy = actor._tag === "User" ? actor.userId : null
        const row = yield* inserted({ environmentId, ...key, tokenHash: sha256(token), tokenStart: tokenStart(token), createdBy })
        // Only names and roles go to the audit log: never the token or its hash.
        yield* audit.record({
          environmentId,
          actor,
          action: "api_key.created",
          targetType: "api_key",
          targetId: row.id,
          metadata: { name: key.name, prefix: key.prefix, role: key.role }
        })
        return { id: row.id, name: key.name, prefix: key.prefix, role: key.role, token, createdAt: row.created_at }
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("ApiKeys.create"))

    const deletedKey = SqlSchema.findOne({
      Request: Schema.Struct({ keyId: Schema.String, environmentId: Schema.String }),
      Result: Schema.Struct({ name: Schema.String, prefix: Prefix }),
      execute: ({ environmentId, keyId }) =>
        sql`DELETE FROM api_keys WHERE id = ${keyId} AND environment_id = ${environmentId} RETURNING name, prefix`
    })

    /** Deletes the key; this instance stops trusting it at once, so it answers 401 from now on. */
    const remove = (actor: Actor, environmentId: string, keyId: string): Effect.Effect<void, ApiKeyNotFound> =>
      Effect.gen(function*() {
        const deleted = yield* Effect.orDie(deletedKey({ keyId, environmentId }))
        if (Option.isNone(deleted)) return yield* Effect.fail(new ApiKeyNotFound({ keyId }))
        const row = deleted.value
        yield* audit.record({
          environmentId,
          actor,
          action: "api_key.deleted",
          targetType: "api_key",
          targetId: keyId,
          metadata: { name: row.name, prefix: row.prefix }
        })
      }).pipe(
        sql.withTransaction,
        // After the commit: a request verifying the key before it would trust it again.
        Effect.zipLeft(announce(`key:${keyId}`)),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("ApiKeys.remove")
      )

    /** The environment's keys are gone (deleted with it): this instance stops trusting them at once. */
    const forgetEnvironment = (environmentId: string): Effect.Effect<void> => announce(`environment:${environmentId}`)

    return { list, create, remove, authenticate, forgetEnvironment } as const
  }),
  dependencies: [AuditLog.Default]
}) {}
