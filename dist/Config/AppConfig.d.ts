import * as ConfigError from "effect/ConfigError";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Redacted from "effect/Redacted";
/**
 * Everything the service reads from its environment. The names and defaults
 * are public API (see the configuration table in the README).
 */
export interface AppConfigShape {
    readonly port: number;
    readonly host: string;
    readonly databaseUrl: Option.Option<Redacted.Redacted>;
    /** Run parameterized statements as named prepared statements (off behind a pooler that cannot keep them). */
    readonly databasePreparedStatements: boolean;
    /** The Postgres schema holding every table (see Db/Schema.ts). */
    readonly databaseSchema: string;
    readonly dataDir: string;
    readonly publicUrl: string;
    readonly allowedOrigins: ReadonlyArray<string>;
    readonly jwtSecret: Redacted.Redacted;
    readonly secretsKey: Redacted.Redacted;
    /** Older SECRETS_KEY values still accepted for opening sealed secrets (key rotation). */
    readonly secretsKeyPrevious: ReadonlyArray<Redacted.Redacted>;
    readonly cookieSecure: boolean;
    readonly production: boolean;
    readonly webhookAllowPrivateNetworks: boolean;
    readonly workerOfflineAfterSeconds: number;
    readonly claimTimeoutSeconds: number;
    readonly webhookConcurrency: number;
    readonly webhookLeaseSeconds: number;
    readonly shutdownTimeoutSeconds: number;
}
declare const AppConfig_base: Context.TagClass<AppConfig, "App/Config", AppConfigShape>;
export declare class AppConfig extends AppConfig_base {
}
export declare const config: Effect.Effect<{
    port: number;
    host: string;
    databaseUrl: Option.Option<Redacted.Redacted<string>>;
    databasePreparedStatements: boolean;
    databaseSchema: string;
    dataDir: string;
    publicUrl: string;
    allowedOrigins: string[];
    jwtSecret: Redacted.Redacted<string>;
    secretsKey: Redacted.Redacted<string>;
    secretsKeyPrevious: Redacted.Redacted<string>[];
    cookieSecure: boolean;
    production: boolean;
    webhookAllowPrivateNetworks: boolean;
    workerOfflineAfterSeconds: number;
    claimTimeoutSeconds: number;
    webhookConcurrency: number;
    webhookLeaseSeconds: number;
    shutdownTimeoutSeconds: number;
}, ConfigError.ConfigError, never>;
/** Reads the configuration from the environment (`ConfigProvider`). */
export declare const layer: Layer.Layer<AppConfig, ConfigError.ConfigError, never>;
/** A fixed configuration, for tests and embedding programs. */
export declare const layerWith: (overrides?: Partial<AppConfigShape>) => Layer.Layer<AppConfig>;
export {};
//# sourceMappingURL=AppConfig.d.ts.map