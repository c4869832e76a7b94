import { NodeHttpServer, NodeRuntime } from "@effect/platform-node";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { HttpLive } from "./App.js";
import { AppConfig, layer as AppConfigLive } from "./Config/AppConfig.js";
import * as Logging from "./Config/Logging.js";
import * as StartupFailure from "./Config/StartupFailure.js";
import * as Tracing from "./Config/Tracing.js";
import * as Database from "./Db/Database.js";
import * as NodeServer from "./Http/NodeServer.js";
import { drainOnSignal, Readiness, shutdownDelaySeconds } from "./Health/Readiness.js";
/**
 * The Node server, drained on SIGTERM/SIGINT. `server.close()` (run when the
 * app's scope closes) stops accepting and waits for open connections, but a
 * keep-alive connection that goes idle after its last in-flight response
 * would hold it open for the whole keep-alive timeout: so from the signal on,
 * responses carry `Connection: close` and idle connections are closed as soon
 * as they go idle. The app's handler is removed a moment before the listener
 * closes; a request arriving in between is answered 503 rather than left hanging.
 */
const drainingServer = () => {
    const server = NodeServer.make();
    const drain = () => {
        setInterval(() => server.closeIdleConnections(), 100).unref();
        server.on("request", (_request, response) => {
            if (response.headersSent)
                return;
            response.setHeader("connection", "close");
            if (server.listenerCount("request") === 1) {
                response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "service is shutting down" }));
            }
        });
    };
    process.once("SIGTERM", drain);
    process.once("SIGINT", drain);
    return server;
};
const ServerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => NodeHttpServer.layer(drainingServer, { port: config.port, host: config.host })));
/**
 * SIGTERM interrupts the app (runMain): readiness answers 503 for
 * SHUTDOWN_DELAY_SECONDS, then the server stops accepting, in-flight
 * requests finish, background fibers hand their work back to the database.
 * If that takes longer than SHUTDOWN_TIMEOUT_SECONDS (after the delay) the process exits anyway.
 */
const ShutdownDeadline = Layer.effectDiscard(Effect.zipWith(AppConfig, shutdownDelaySeconds, (config, delay) => {
    const arm = () => setTimeout(() => process.exit(1), (delay + config.shutdownTimeoutSeconds) * 1000).unref();
    process.once("SIGTERM", arm);
    process.once("SIGINT", arm);
}));
// The drain hook is built after the server, so on shutdown it is released first (see `drainOnSignal`).
drainOnSignal.pipe(Layer.provide(HttpLive), Layer.provide(ServerLive), Layer.provide(Database.layer), Layer.provide(Readiness.Default), Layer.merge(ShutdownDeadline), Layer.provide(AppConfigLive), Layer.provide(Logging.layer), Layer.provide(Tracing.layer), Layer.launch, StartupFailure.handle, NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true }));
//# sourceMappingURL=main.js.map