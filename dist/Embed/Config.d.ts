import * as Context from "effect/Context";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import type * as Redacted from "effect/Redacted";
import { AppConfig } from "../Config/AppConfig.js";
/**
 * Settings of the embedded scheduler. Every field has a default in
 * `PipelineTriggersConfig.defaults`; `layerWith(options)` overrides some.
 */
export interface PipelineTriggersConfigShape {
    /** Where `layerEmbedded` keeps its database (`<dataDir>/pg`) and generated secrets (`secrets.json`). Default `./.data`. */
    readonly dataDir: string;
    /**
     * The Postgres schema of every table (created if missing), so the service's
     * tables never clash with the host's own. Default `pipeline_triggers`.
     */
    readonly schema: string;
    /** 32-byte key (base64) sealing webhook secrets at rest. Default: generated once into `dataDir`. */
    readonly secretsKey: Option.Option<Redacted.Redacted>;
    /** HMAC key of session JWTs (only used by a mounted HTTP API). Default: generated once into `dataDir`. */
    readonly jwtSecret: Option.Option<Redacted.Redacted>;
    /** The mounted HTTP API's own origin, an allowed Origin for cookie calls. Default `http://localhost:3000`. */
    readonly publicUrl: string;
    /** An assigned run not claimed within this many seconds goes back to `queued`. Default 30. */
    readonly claimTimeoutSeconds: number;
    /** A worker not seen for this many seconds is offline and gets no runs. Default 30. */
    readonly workerOfflineAfterSeconds: number;
    /** Allow webhook URLs on loopback, private or link-local addresses. Default false. */
    readonly webhookAllowPrivateNetworks: boolean;
    /** Webhook deliveries in flight at once. Default 64. */
    readonly webhookConcurrency: number;
    /**
     * The user the embedding program acts as: it owns every workspace and
     * environment created through `PipelineTriggers`, and audit records name it.
     * It has no password, so it can never log in over HTTP.
     * Default `embedded@pipeline-triggers.local`.
     */
    readonly principalEmail: string;
}
declare const PipelineTriggersConfig_base: Context.TagClass<PipelineTriggersConfig, "PipelineTriggers/Config", PipelineTriggersConfigShape>;
export declare class PipelineTriggersConfig extends PipelineTriggersConfig_base {
    static readonly defaults: PipelineTriggersConfigShape;
}
export type PipelineTriggersOptions = Partial<PipelineTriggersConfigShape>;
/** The defaults with the given overrides. */
export declare const layerConfig: (options?: PipelineTriggersOptions) => Layer.Layer<PipelineTriggersConfig>;
/** The service's `AppConfig` from the embedding config (missing secrets are generated into `dataDir`). */
export declare const AppConfigFromEmbedding: Layer.Layer<AppConfig, never, PipelineTriggersConfig>;
export {};
//# sourceMappingURL=Config.d.ts.map