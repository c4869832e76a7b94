/**
 * Pipeline Trigger Service as a library.
 *
 * - `Api`: the HTTP API definition (contract only), for clients and servers.
 * - The error classes every endpoint answers with.
 * - `makeClient`: the typed `HttpApiClient` of the whole API.
 * - The worker SDK: `runWorker`, `register` and their errors.
 * - `PipelineTriggers`: the scheduler as Layers for an Effect program
 *   (`layer`, `layerWith`, `layerEmbedded`, `layerHttp`, the `PipelineTriggers`
 *   service and the `PipelineTriggersConfig` Tag with its `defaults`).
 */
export { Api } from "./Contract/Api.js"
export { type ClientOptions, makeClient, type PipelineClient } from "./Client.js"
export {
  BadRequest,
  Conflict,
  Forbidden,
  InternalError,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  ValidationDetails,
  ValidationError
} from "./Contract/Domain/ApiErrors.js"
export * as PipelineTriggers from "./Embed.js"
export { Run, RunStatus } from "./Contract/Domain/Run.js"
export { PolledRun } from "./Contract/WorkerProtocolApi.js"
export { CreateTrigger, Trigger } from "./Contract/TriggersApi.js"
export * from "./WorkerSdk/WorkerSdk.js"
