import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { AppConfig, layerWith as appConfigWith } from "../Config/AppConfig.js"
import { DevSecrets } from "../Config/DevSecrets.js"
import * as Schema from "../Db/Schema.js"
import { tunableDefaults } from "../Config/Defaults.js"

/**
 * Settings of the embedded scheduler. Every field has a default in
 * `PipelineTriggersConfig.defaults`; `layerWith(options)` overrides some.
 */
export interface PipelineTriggersConfigShape {
  /** Where `layerEmbedded` keeps its database (`<dataDir>/pg`) and generated secrets (`secrets.json`). Default `./.data`. */
  readonly dataDir: string
  /**
   * The Postgres schema of every table (created if missing), so the service's
   * tables never clash with the host's own. Default `pipeline_triggers`.
   */
  readonly schema: string
  /** 32-byte key (base64) sealing webhook secrets at rest. Default: generated once into `dataDir`. */
  readonly secretsKey: Option.Option<Redacted.Redacted>
  /** HMAC key of session JWTs (only used by a mounted HTTP API). Default: generated once into `dataDir`. */
  readonly jwtSecret: Option.Option<Redacted.Redacted>
  /** The mounted HTTP API's own origin, an allowed Origin for cookie calls. Default `http://localhost:3000`. */
  readonly publicUrl: string
  /** An assigned run not claimed within this many seconds goes back to `queued`. Default 30. */
  readonly claimTimeoutSeconds: number
  /** A worker not seen for this many seconds is offline and gets no runs. Default 30. */
  readonly workerOfflineAfterSeconds: number
  /** Allow webhook URLs on loopback, private or link-local addresses. Default false. */
  readonly webhookAllowPrivateNetworks: boolean
  /** Webhook deliveries in flight at once. Default 64. */
  readonly webhookConcurrency: number
  /**
   * The user the embedding program acts as: it owns every workspace and
   * environment created through `PipelineTriggers`, and audit records name it.
   * It has no password, so it can never log in over HTTP.
   * Default `embedded@pipeline-triggers.local`.
   */
  readonly principalEmail: string
}

export class PipelineTriggersConfig extends Context.Tag("PipelineTriggers/Config")<
  PipelineTriggersConfig,
  PipelineTriggersConfigShape
>() {
  static readonly defaults: PipelineTriggersConfigShape = {
    dataDir: "./.data",
    schema: Schema.defaultSchema,
    secretsKey: Option.none(),
    jwtSecret: Option.none(),
    publicUrl: "http://localhost:3000",
    claimTimeoutSeconds: tunableDefaults.claimTimeoutSeconds,
    workerOfflineAfterSeconds: tunableDefaults.workerOfflineAfterSeconds,
    webhookAllowPrivateNetworks: false,
    webhookConcurrency: tunableDefaults.webhookConcurrency,
    principalEmail: "embedded@pipeline-triggers.local"
  }
}

export type PipelineTriggersOptions = Partial<PipelineTriggersConfigShape>

/** The defaults with the given overrides. */
export const layerConfig = (options: PipelineTriggersOptions = {}): Layer.Layer<PipelineTriggersConfig> =>
  Layer.succeed(PipelineTriggersConfig, { ...PipelineTriggersConfig.defaults, ...options })

/** The service's `AppConfig` from the embedding config (missing secrets are generated into `dataDir`). */
export const AppConfigFromEmbedding: Layer.Layer<AppConfig, never, PipelineTriggersConfig> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* PipelineTriggersConfig
    const generated = Option.isNone(config.secretsKey) || Option.isNone(config.jwtSecret)
      ? yield* DevSecrets.loadOrCreate(config.dataDir)
      : undefined
    return appConfigWith({
      dataDir: config.dataDir,
      databaseSchema: Schema.validate(config.schema),
      publicUrl: config.publicUrl,
      secretsKey: Option.getOrElse(config.secretsKey, () => generated!.secretsKey),
      jwtSecret: Option.getOrElse(config.jwtSecret, () => generated!.jwtSecret),
      claimTimeoutSeconds: config.claimTimeoutSeconds,
      workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
      webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
      webhookConcurrency: config.webhookConcurrency
    })
  })
)
