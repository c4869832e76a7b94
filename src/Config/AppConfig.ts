import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as DataDir from "../Db/DataDir.js"
import * as Schema from "../Db/Schema.js"
import { DevSecrets } from "./DevSecrets.js"
import * as Settings from "./Settings.js"

/**
 * What the service reads from its environment about where it runs: address,
 * database, origins, keys. The names and defaults are public API (see the
 * configuration table in docs/configuration.md); the tunables are in `Config/Tuning`.
 */
export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** Run parameterized statements as named prepared statements (off behind a pooler that cannot keep them). */
  readonly databasePreparedStatements: boolean
  /** The Postgres schema holding every table (see Db/Schema.ts). */
  readonly databaseSchema: string
  readonly dataDir: string
  readonly publicUrl: string
  readonly allowedOrigins: ReadonlyArray<string>
  readonly jwtSecret: Redacted.Redacted
  readonly secretsKey: Redacted.Redacted
  /** Older SECRETS_KEY values still accepted for opening sealed secrets (key rotation). */
  readonly secretsKeyPrevious: ReadonlyArray<Redacted.Redacted>
  readonly cookieSecure: boolean
  readonly production: boolean
  readonly webhookAllowPrivateNetworks: boolean
}

export class AppConfig extends Context.Tag("App/Config")<AppConfig, AppConfigShape>() {}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

const { httpUrl } = Settings

// Comma-separated origins; an entry that is not an http(s) URL would never match a browser's Origin.
const csv = (name: string) =>
  Settings.parsed(name, "comma-separated http:// or https:// origins", (s) => {
    const entries = s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)
    return entries.every(httpUrl) ? entries.map(originOf) : undefined
  }).pipe(Config.withDefault([]))

/** `DATABASE_URL`, read once here for every reader (`Processes/ProcessCount` too). */
export const databaseUrlConfig = Config.redacted("DATABASE_URL").pipe(
  Config.withDescription("Postgres URL; unset = embedded Postgres (PGlite) in DATA_DIR"),
  Config.option,
  // An empty DATABASE_URL means "unset", as shells and compose files often pass it.
  Config.map(Option.filter((url) => Redacted.value(url).trim().length > 0)),
  // Its password stays out of the message: only the scheme is quoted.
  Config.mapOrFail((url): Either.Either<Option.Option<Redacted.Redacted>, ConfigError.ConfigError> => {
    if (Option.isNone(url)) return Either.right(url)
    const text = Redacted.value(url.value).trim()
    let scheme: string | undefined
    try {
      scheme = new URL(text).protocol
    } catch {
      scheme = undefined
    }
    return scheme === "postgres:" || scheme === "postgresql:"
      ? Either.right(url)
      : Either.left(ConfigError.InvalidData(
        ["DATABASE_URL"],
        `a value ${scheme === undefined ? "that is not a URL" : `with scheme ${JSON.stringify(scheme)}`} is not allowed ` +
          "(the value is not shown: it may hold a password); expected postgres://user:password@host:5432/database, or unset for the embedded database"
      ))
  })
)

// A key for sealing secrets: 32 bytes, base64 (`openssl rand -base64 32`). The value is never shown.
const secretsKeyValid = (b64: string) => Buffer.from(b64.trim(), "base64").length === 32
const secretsKeyRefused = (name: string, raw: string) =>
  ConfigError.InvalidData(
    [name],
    `a value of ${raw.length} characters decoding to ${Buffer.from(raw.trim(), "base64").length} bytes is not allowed ` +
      `(the value is not shown); expected 32 bytes, base64-encoded (openssl rand -base64 32)`
  )

/**
 * Every setting read and checked, without touching the disk: what `config`
 * builds on, and what a start reads first so that any bad setting fails it
 * within moments (`Processes/Launch`), before the database is opened.
 */
export const settings = Effect.gen(function*() {
  const nodeEnv = yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))
  const production = nodeEnv === "production"
  const port = yield* Settings.wholeNumber("PORT", { min: 1, max: 65535, unit: "a TCP port" }).pipe(
    Config.withDefault(3000),
    Config.withDescription("HTTP port")
  )
  const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"), Config.withDescription("bind address"))
  const databaseUrl = yield* databaseUrlConfig
  const databasePreparedStatements = yield* Settings.boolean("DATABASE_PREPARED_STATEMENTS").pipe(Config.withDefault(true))
  const databaseSchema = yield* Settings.parsed(
    "DATABASE_SCHEMA",
    "a lower-case Postgres identifier (letters, digits, _)",
    (s) => Schema.isValid(s) ? s : undefined
  ).pipe(
    Config.withDefault(Schema.defaultSchema),
    Config.withDescription("the Postgres schema of every table")
  )
  const dataDir = yield* Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))
  const publicUrlSet = yield* Settings.parsed("PUBLIC_URL", "an http:// or https:// URL", (s) => httpUrl(s) ? s : undefined).pipe(
    Config.withDescription("the origin browsers use to reach the service; default http://localhost:PORT"),
    Config.option
  )
  const publicUrl = Option.getOrElse(publicUrlSet, () => `http://localhost:${port}`)
  // Without PUBLIC_URL the service is reached on this machine, under whichever
  // loopback spelling the user copies (the log prints 127.0.0.1, the default is localhost).
  const loopbackOrigins = Option.isNone(publicUrlSet)
    ? [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]
    : []
  const allowedOrigins = [...(yield* csv("ALLOWED_ORIGINS")), ...loopbackOrigins]
  const jwtSecretOpt = yield* Config.redacted("JWT_SECRET").pipe(Config.option)
  const secretsKeyOpt = yield* Config.redacted("SECRETS_KEY").pipe(
    Config.mapOrFail((key) =>
      secretsKeyValid(Redacted.value(key)) ? Either.right(key) : Either.left(secretsKeyRefused("SECRETS_KEY", Redacted.value(key)))
    ),
    Config.option
  )
  const secretsKeyPrevious = yield* Config.string("SECRETS_KEY_PREVIOUS").pipe(
    Config.withDefault(""),
    Config.withDescription("comma-separated older SECRETS_KEY values, still accepted for opening"),
    Config.map((s) => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)),
    Config.mapOrFail((keys) => {
      const bad = keys.find((key) => !secretsKeyValid(key))
      return bad === undefined ? Either.right(keys.map(Redacted.make)) : Either.left(secretsKeyRefused("SECRETS_KEY_PREVIOUS", bad))
    })
  )
  const cookieSecure = yield* Settings.boolean("COOKIE_SECURE").pipe(Config.withDefault(production))
  const webhookAllowPrivateNetworks = yield* Settings.boolean("WEBHOOK_ALLOW_PRIVATE_NETWORKS").pipe(
    Config.withDefault(false)
  )

  const secretsMissing = Option.isNone(jwtSecretOpt) || Option.isNone(secretsKeyOpt)
  if (production && secretsMissing) {
    return yield* Effect.fail(ConfigError.MissingData([], "NODE_ENV=production requires JWT_SECRET and SECRETS_KEY to be set"))
  }
  // A shared database is shared by instances that must sign and seal with the
  // same keys; keys generated on one machine's disk would differ on the next.
  // Storing generated keys in the database beside the data they protect would
  // defeat encryption at rest, so they are required instead (docs/configuration.md).
  if (Option.isSome(databaseUrl) && secretsMissing) {
    return yield* Effect.fail(ConfigError.MissingData(
      [],
      "DATABASE_URL requires JWT_SECRET and SECRETS_KEY: every instance on one database must use the same keys. " +
        "Generate them once (openssl rand -base64 48; openssl rand -base64 32) and give them to every instance."
    ))
  }
  return {
    port,
    host,
    databaseUrl,
    databasePreparedStatements,
    databaseSchema,
    dataDir,
    publicUrl: originOf(publicUrl),
    allowedOrigins,
    jwtSecretOpt,
    secretsKeyOpt,
    secretsKeyPrevious,
    cookieSecure,
    production,
    webhookAllowPrivateNetworks
  }
})

/**
 * `settings`, DATA_DIR made and checked (embedded database) and, when the
 * keys are not set there, the development keys loaded from it or generated.
 */
export const config = Effect.gen(function*() {
  const { jwtSecretOpt, secretsKeyOpt, ...read } = yield* settings
  const { databaseUrl, dataDir } = read
  // The embedded database lives in DATA_DIR: one that cannot serve is refused
  // here, before anything is written there, rather than deep in the database's start.
  if (Option.isNone(databaseUrl)) yield* DataDir.check(dataDir)
  // On the embedded database (one process, see Db/DataDirLock), missing secrets
  // are generated once into DATA_DIR so a restart keeps sessions and encrypted
  // webhook secrets readable.
  const dev = Option.isNone(jwtSecretOpt) || Option.isNone(secretsKeyOpt)
    ? yield* DevSecrets.loadOrCreate(dataDir)
    : undefined
  const jwtSecret = Option.getOrElse(jwtSecretOpt, () => dev!.jwtSecret)
  const secretsKey = Option.getOrElse(secretsKeyOpt, () => dev!.secretsKey)

  return { ...read, jwtSecret, secretsKey } satisfies AppConfigShape
})

/** Reads the configuration from the environment (`ConfigProvider`). */
export const layer = Layer.effect(AppConfig, config)

/**
 * A fixed configuration (tests, embedding programs): the defaults, with the
 * keys given by the caller. No key has a default here, so
 * none ships in the package (the tests' keys are in test/support).
 */
export const layerWith = (
  overrides: Pick<AppConfigShape, "jwtSecret" | "secretsKey"> & Partial<AppConfigShape>
): Layer.Layer<AppConfig> =>
  Layer.succeed(AppConfig, {
    port: 0,
    host: "127.0.0.1",
    databaseUrl: Option.none(),
    databasePreparedStatements: true,
    databaseSchema: Schema.defaultSchema,
    dataDir: "./.data",
    publicUrl: "http://localhost:3000",
    allowedOrigins: [],
    secretsKeyPrevious: [],
    cookieSecure: false,
    production: false,
    webhookAllowPrivateNetworks: false,
    ...overrides
  })
