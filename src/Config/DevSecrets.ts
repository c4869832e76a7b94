import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DataDir from "../Db/DataDir.js"

interface Stored {
  readonly jwtSecret: string
  readonly secretsKey: string
}

/**
 * Development secrets kept in `DATA_DIR/secrets.json` (mode 0600). Generated
 * on the first start, reused afterwards; never used when NODE_ENV=production.
 */
export const DevSecrets = {
  loadOrCreate: (dataDir: string) =>
    Effect.gen(function*() {
      const file = path.join(dataDir, "secrets.json")
      const stored = yield* Effect.try({
        try: () => {
          DataDir.makeDirectory(dataDir)
          if (fs.existsSync(file)) {
            return JSON.parse(fs.readFileSync(file, "utf8")) as Stored
          }
          const fresh: Stored = {
            jwtSecret: randomBytes(48).toString("base64"),
            secretsKey: randomBytes(32).toString("base64")
          }
          fs.writeFileSync(file, JSON.stringify(fresh), { mode: 0o600 })
          return fresh
        },
        // A corrupt or unreadable file: say which, and how to start over.
        catch: (error) =>
          new Error(
            `development secrets in ${file} (DATA_DIR=${dataDir}) could not be read or written: ` +
              `${error instanceof Error ? error.message : String(error)}. ` +
              "Fix or delete that file (sessions and stored webhook secrets made with it become unreadable), or set JWT_SECRET and SECRETS_KEY."
          )
      }).pipe(Effect.orDie)
      yield* Effect.logInfo("using development secrets").pipe(Effect.annotateLogs({ file }))
      return { jwtSecret: Redacted.make(stored.jwtSecret), secretsKey: Redacted.make(stored.secretsKey) }
    })
}
