import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { AppConfig, layerWith as appConfigWith } from "../Config/AppConfig.js"
import { DevSecrets } from "../Config/DevSecrets.js"
import * as Schema from "../Db/Schema.js"
import * as Tuning from "../Config/Tuning.js"

/**
 * Settings of the embedded scheduler: where it keeps its data, its keys, and
 * every tunable of `Config/Tuning` (claim timeout, offline threshold, webhook
 * concurrency, …). Every field has a default in
 * `PipelineTriggersConfig.defaults`; `layerWith(options)` overrides some.
 */
export interface PipelineTriggersConfigShape extends Tuning.TuningShape {
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
  /** Allow webhook URLs on loopback, private or link-local addresses. Default false. */
  readonly webhookAllowPrivateNetworks: boolean
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
    ...Tuning.defaults,
    dataDir: "./.data",
    schema: Schema.defaultSchema,
    secretsKey: Option.none(),
    jwtSecret: Option.none(),
    publicUrl: "http://localhost:3000",
    webhookAllowPrivateNetworks: false,
    principalEmail: "embedded@pipeline-triggers.local"
  }
}

export type PipelineTriggersOptions = Partial<PipelineTriggersConfigShape>

/** The defaults with the given overrides. */
export const layerConfig = (options: PipelineTriggersOptions = {}): Layer.Layer<PipelineTriggersConfig> =>
  Layer.succeed(PipelineTriggersConfig, { ...PipelineTriggersConfig.defaults, ...options })

/** The tunables among the embedding settings. */
const tuningOf = (config: PipelineTriggersConfigShape): Tuning.TuningShape => {
  const tuning: Record<string, unknown> = {}
  for (const key of Object.keys(Tuning.defaults)) tuning[key] = config[key as keyof Tuning.TuningShape]
  return tuning as unknown as Tuning.TuningShape
}

/** The service's `AppConfig` and `Tuning` from the embedding config (missing secrets are generated into `dataDir`). */
export const ConfigFromEmbedding: Layer.Layer<AppConfig | Tuning.Tuning, never, PipelineTriggersConfig> = Layer.unwrapEffect(
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
      webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks
    }).pipe(Layer.merge(Tuning.layer(tuningOf(config))))
  })
)
