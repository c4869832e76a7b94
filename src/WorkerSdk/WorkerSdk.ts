/**
 * The worker SDK: run a worker against the service from any Effect program.
 *
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { runWorker } from "pipeline-trigger-service/worker"
 *
 * runWorker({
 *   baseUrl: "http://localhost:3000",
 *   registrationToken: process.env.PIPELINE_REGISTRATION_TOKEN!,
 *   concurrency: 4,
 *   handler: (run) => Effect.succeed({ status: "succeeded", stdout: `hello from ${run.id}` })
 * }).pipe(Effect.provide(FetchHttpClient.layer), NodeRuntime.runMain)
 * ```
 */
export { NonRetryable, WorkerConfigError, type WorkerError, WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js"
export { defaultRetrySchedule, describe, isTransient } from "./Transient.js"
export { awaitService, identify, register, validateBaseUrl } from "./Connect.js"
export type { RunResult, WorkerCredentials, WorkerOptions, WorkerRun } from "./Types.js"
export { runWorker } from "./Worker.js"
export { RunLog } from "./RunLog.js"
export type { WebSocketFactory } from "./Channel.js"
