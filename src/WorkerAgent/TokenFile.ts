import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { WorkerCredentials } from "../WorkerSdk/WorkerSdk.js"

export class TokenFileError extends Data.TaggedError("TokenFileError")<{ readonly message: string }> {}

interface Stored {
  readonly workerId: string
  readonly token: string
  readonly url: string
  /** SHA-256 of the registration token it came from, so a start with another one registers anew. */
  readonly registrationTokenHash?: string
}

export interface Saved extends WorkerCredentials {
  readonly url: string
  readonly registrationTokenHash: string | undefined
}

export const hashRegistrationToken = (registrationToken: string): string =>
  createHash("sha256").update(registrationToken).digest("hex")

/**
 * The worker's credentials from an earlier registration, or undefined when
 * the file does not exist. The file holds the `wkt_` token in plain text, so it
 * is created with mode 0600 (owner only), like an SSH key.
 */
export const read = (file: string): Effect.Effect<Saved | undefined, TokenFileError> =>
  Effect.try({
    try: () => {
      if (!fs.existsSync(file)) return undefined
      const stored = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Stored>
      if (typeof stored.workerId !== "string" || typeof stored.token !== "string" || !stored.token.startsWith("wkt_")) {
        throw new Error("expected {workerId, token}")
      }
      return {
        workerId: stored.workerId,
        token: Redacted.make(stored.token),
        url: stored.url ?? "",
        registrationTokenHash: stored.registrationTokenHash
      }
    },
    catch: (error) =>
      new TokenFileError({
        message: `cannot read the token file ${file}: ${error instanceof Error ? error.message : String(error)} (delete it to register again)`
      })
  })

/** Writes the credentials atomically (temp file + rename), owner-readable only. */
export const write = (
  file: string,
  credentials: WorkerCredentials,
  url: string,
  registrationToken: string | undefined
): Effect.Effect<void, TokenFileError> =>
  Effect.try({
    try: () => {
      const stored: Stored = {
        workerId: credentials.workerId,
        token: Redacted.value(credentials.token),
        url,
        ...(registrationToken === undefined ? {} : { registrationTokenHash: hashRegistrationToken(registrationToken) })
      }
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temp, JSON.stringify(stored) + "\n", { mode: 0o600 })
      fs.renameSync(temp, file)
    },
    catch: (error) =>
      new TokenFileError({ message: `cannot write the token file ${file}: ${error instanceof Error ? error.message : String(error)}` })
  })
