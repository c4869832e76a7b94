/**
 * The scheduler for an embedding Effect program: its config (`Embed/EmbedConfig`),
 * the `PipelineTriggers` service (`Embed/PipelineTriggers`) and the layers
 * that provide it on the host's database, on an embedded one, or with the
 * HTTP API mounted (`Embed/Layers`). Exported as `PipelineTriggers` from the
 * package root.
 */
export {
  layerConfig,
  PipelineTriggersConfig,
  type PipelineTriggersConfigShape,
  type PipelineTriggersOptions
} from "./Embed/EmbedConfig.js"
export { type EmbeddedEnvironment, PipelineTriggers, type RunFilter } from "./Embed/PipelineTriggers.js"
export { layer, layerEmbedded, layerHttp, layerWith, type Services } from "./Embed/Layers.js"
