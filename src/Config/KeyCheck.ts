import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { createHmac } from "node:crypto"
import { SecretBox } from "../Crypto/SecretBox.js"
import { AppConfig } from "./AppConfig.js"

/**
 * Every instance on one database must sign sessions with the same JWT_SECRET
 * and seal webhook secrets with the same SECRETS_KEY; otherwise sessions made
 * on one are refused by the other and webhooks fail for good. The first
 * instance records fingerprints of its keys (never the keys); a later one
 * with different keys is refused at start with a message saying which.
 */
export class KeyMismatch extends Data.TaggedError("KeyMismatch")<{ readonly message: string }> {}

/** A fingerprint that identifies the JWT key without revealing it (HMAC of a constant). */
const jwtFingerprint = (secret: Redacted.Redacted) =>
  createHmac("sha256", Redacted.value(secret)).update("pipeline-trigger-service/jwt-fingerprint").digest("hex").slice(0, 16)

export const check = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* AppConfig
  const box = yield* SecretBox
  const ours = { jwt: jwtFingerprint(config.jwtSecret), secrets: box.currentKeyId }
  yield* sql`
    INSERT INTO key_fingerprints (purpose, fingerprint)
    VALUES ('jwt', ${ours.jwt}), ('secrets', ${ours.secrets})
    ON CONFLICT (purpose) DO NOTHING`
  const fingerprints = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ purpose: Schema.String, fingerprint: Schema.String }),
    execute: () => sql`SELECT purpose, fingerprint FROM key_fingerprints`
  })
  const stored = new Map(
    (yield* fingerprints(undefined).pipe(Effect.catchTag("ParseError", Effect.die)))
      .map((row) => [row.purpose, row.fingerprint] as const)
  )

  const secrets = stored.get("secrets")!
  if (secrets !== ours.secrets) {
    if (!box.previousKeyIds.includes(secrets)) {
      return yield* new KeyMismatch({
        message: `SECRETS_KEY differs from the key the other instances on this database use (their key id ${secrets}, ` +
          `this instance's ${ours.secrets}): webhook secrets sealed by one could not be opened by the other. ` +
          `Give every instance the same SECRETS_KEY; to rotate it, set the new one as SECRETS_KEY and the old one ` +
          `in SECRETS_KEY_PREVIOUS.`
      })
    }
    // A rotation: the old key stays readable through SECRETS_KEY_PREVIOUS; new secrets use ours.
    yield* sql`UPDATE key_fingerprints SET fingerprint = ${ours.secrets}, updated_at = now()
               WHERE purpose = 'secrets' AND fingerprint = ${secrets}`
    yield* Effect.logInfo("SECRETS_KEY rotated").pipe(Effect.annotateLogs({ from: secrets, to: ours.secrets }))
  }

  const jwt = stored.get("jwt")!
  if (jwt !== ours.jwt) {
    return yield* new KeyMismatch({
      message: `JWT_SECRET differs from the one the other instances on this database use (fingerprint ${jwt}, ` +
        `this instance's ${ours.jwt}): sessions made on one would be refused by the other. Give every instance ` +
        `the same JWT_SECRET. To change it on purpose (everyone signs in again), stop every instance, run ` +
        `DELETE FROM ${config.databaseSchema}.key_fingerprints WHERE purpose = 'jwt', and start them with the new one.`
    })
  }
})

/** Runs the check when the services start. */
export const layer = Layer.effectDiscard(check)
