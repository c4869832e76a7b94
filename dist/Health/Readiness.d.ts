import * as SqlClient from "@effect/sql/SqlClient";
import * as Config from "effect/Config";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
/** Seconds the service keeps serving after SIGTERM with `/health/ready` at 503, so load balancers stop sending first. */
export declare const shutdownDelaySeconds: Config.Config<number>;
export type NotReady = "draining" | "database unreachable" | "migrations pending";
declare const Readiness_base: Effect.Service.Class<Readiness, "Health/Readiness", {
    readonly sync: () => {
        markDraining: Effect.Effect<void, never, never>;
        isDraining: Effect.Effect<boolean, never, never>;
        /** Why this instance is not ready, or undefined when it is. */
        check: (sql: SqlClient.SqlClient) => Effect.Effect<"draining" | "database unreachable" | "migrations pending" | undefined, never, never>;
    };
}>;
/**
 * Whether this instance should get traffic: the database answers, this
 * build's migrations are applied, and no shutdown has begun (a SIGTERM flips
 * `draining` before the port closes, see `drainOnSignal`).
 */
export declare class Readiness extends Readiness_base {
}
/**
 * SIGTERM/SIGINT mark the instance draining at once (the runtime's own
 * handler starts the shutdown in the same tick). Built after the HTTP
 * server, so its finalizer runs first on shutdown: it holds the server open
 * for `SHUTDOWN_DELAY_SECONDS` while readiness answers 503.
 */
export declare const drainOnSignal: Layer.Layer<never, import("effect/ConfigError").ConfigError, Readiness>;
export {};
//# sourceMappingURL=Readiness.d.ts.map