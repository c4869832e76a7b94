/**
 * The scheduler for an embedding Effect program: its config (`Embed/Config`),
 * the `PipelineTriggers` service (`Embed/PipelineTriggers`) and the layers
 * that provide it on the host's database, on an embedded one, or with the
 * HTTP API mounted (`Embed/Layers`). Exported as `PipelineTriggers` from the
 * package root.
 */
export { layerConfig, PipelineTriggersConfig, type PipelineTriggersConfigShape, type PipelineTriggersOptions } from "./Embed/Config.js";
export { type EmbeddedEnvironment, PipelineTriggers, type RunFilter } from "./Embed/PipelineTriggers.js";
export { layer, layerEmbedded, layerHttp, layerWith, type Services } from "./Embed/Layers.js";
//# sourceMappingURL=Embed.d.ts.map