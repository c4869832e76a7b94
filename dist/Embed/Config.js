import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import { layerWith as appConfigWith } from "../Config/AppConfig.js";
import { DevSecrets } from "../Config/DevSecrets.js";
import * as Schema from "../Db/Schema.js";
export class PipelineTriggersConfig extends Context.Tag("PipelineTriggers/Config")() {
    static defaults = {
        dataDir: "./.data",
        schema: Schema.defaultSchema,
        secretsKey: Option.none(),
        jwtSecret: Option.none(),
        publicUrl: "http://localhost:3000",
        claimTimeoutSeconds: 30,
        workerOfflineAfterSeconds: 30,
        webhookAllowPrivateNetworks: false,
        webhookConcurrency: 64,
        principalEmail: "embedded@pipeline-triggers.local"
    };
}
/** The defaults with the given overrides. */
export const layerConfig = (options = {}) => Layer.succeed(PipelineTriggersConfig, { ...PipelineTriggersConfig.defaults, ...options });
/** The service's `AppConfig` from the embedding config (missing secrets are generated into `dataDir`). */
export const AppConfigFromEmbedding = Layer.unwrapEffect(Effect.gen(function* () {
    const config = yield* PipelineTriggersConfig;
    const generated = Option.isNone(config.secretsKey) || Option.isNone(config.jwtSecret)
        ? yield* DevSecrets.loadOrCreate(config.dataDir)
        : undefined;
    return appConfigWith({
        dataDir: config.dataDir,
        databaseSchema: Schema.validate(config.schema),
        publicUrl: config.publicUrl,
        secretsKey: Option.getOrElse(config.secretsKey, () => generated.secretsKey),
        jwtSecret: Option.getOrElse(config.jwtSecret, () => generated.jwtSecret),
        claimTimeoutSeconds: config.claimTimeoutSeconds,
        workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
        webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
        webhookConcurrency: config.webhookConcurrency
    });
}));
//# sourceMappingURL=Config.js.map