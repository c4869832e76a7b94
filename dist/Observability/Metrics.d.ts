import * as Metric from "effect/Metric";
/** Scrape-time gauges: set from the database or this instance's state just before each exposition. */
export declare const gauges: {
    queued: Metric.Metric.Gauge<number>;
    active: Metric.Metric.Gauge<number>;
    supervised: Metric.Metric.Gauge<number>;
    dbPool: Metric.Metric.Gauge<number>;
};
/** Turns recording on or off for the whole process (see `Observability/Config`). */
export declare const setEnabled: (on: boolean) => void;
export declare const isEnabled: () => boolean;
/** Synchronous recorders, called where the event happens (they cannot fail). */
export declare const record: {
    runsRequested: (environmentId: string, n: number) => void;
    runEnded: (environmentId: string, status: string, durationMs: number | null) => void;
    dispatched: (environmentId: string, latencyMs: number) => void;
    webhookAttempt: (outcome: "delivered" | "retryable" | "permanent") => void;
    http: (method: string, route: string, status: number, durationMs: number) => void;
    queued: (environmentId: string, n: number) => void;
    active: (environmentId: string, status: string, n: number) => void;
    supervised: (n: number) => void;
    dbPool: (state: "busy" | "idle" | "waiting" | "max", n: number) => void;
};
//# sourceMappingURL=Metrics.d.ts.map