import type { HttpClient } from "@effect/platform";
import * as Effect from "effect/Effect";
import { type WorkerError } from "./Errors.js";
import type { WorkerOptions } from "./Types.js";
/**
 * Runs a worker until interrupted or until it cannot continue (a refused
 * token, a bad URL). It long-polls for runs, claims and starts each one, runs
 * `handler` while heartbeating at a fraction of the run's
 * `heartbeatTimeoutSeconds`, and completes the run with the handler's result.
 *
 * - A handler failure completes the run `failed` (stderr = the error), with
 *   `faultClass: "client"` for a typed failure and `"infra"` for a defect.
 * - Past the run's `timeoutSeconds` the handler is interrupted and the run is
 *   left to the service, which records it `timed_out`.
 * - On interruption (SIGTERM through `NodeRuntime.runMain`) the worker stops
 *   polling at once, lets in-flight runs finish within `shutdownGracePeriod`,
 *   then interrupts the rest and completes them `failed` with `faultClass: "infra"`.
 */
export declare const runWorker: <E, R>(options: WorkerOptions<E, R>) => Effect.Effect<never, WorkerError, HttpClient.HttpClient | R>;
//# sourceMappingURL=Worker.d.ts.map