import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { AppConfig } from "../Config/AppConfig.js";
export class SchedulerConfig extends Context.Tag("Scheduler/Config")() {
    static defaults = {
        claimTimeoutSeconds: 30,
        workerOfflineAfterSeconds: 30,
        sweepIntervalMillis: 1000,
        sweepHorizonMillis: 5000,
        batchSize: 500,
        maxAssignedPerWorker: 100,
        activeWorkerSeconds: 5
    };
}
/** The defaults with the given overrides. */
export const layerWith = (overrides = {}) => Layer.succeed(SchedulerConfig, { ...SchedulerConfig.defaults, ...overrides });
/** Claim timeout and offline threshold from the service's `AppConfig`, the rest default. */
export const layer = Layer.effect(SchedulerConfig, Effect.map(AppConfig, (config) => ({
    ...SchedulerConfig.defaults,
    claimTimeoutSeconds: config.claimTimeoutSeconds,
    workerOfflineAfterSeconds: config.workerOfflineAfterSeconds
})));
//# sourceMappingURL=SchedulerConfig.js.map