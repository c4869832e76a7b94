import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import cluster from "node:cluster"
import * as AppConfig from "../Config/AppConfig.js"
import * as Tuning from "../Config/Tuning.js"
import * as Logging from "../Config/Logging.js"
import * as StartupFailure from "../Config/StartupFailure.js"
import * as ProcessMetrics from "../Observability/ProcessMetrics.js"
import * as Preflight from "./Preflight.js"
import * as Primary from "./Primary.js"
import * as Stopping from "./Stopping.js"
import { processCount } from "./ProcessCount.js"

// Imported when this process runs the service: a primary of several never loads the app.
const service = Stopping.supervise((started) =>
  Effect.flatMap(Effect.promise(() => import("../App.js")), (app) => Layer.launch(app.layer.pipe(Layer.tap(() => started))))
)

/**
 * One of several service processes. Its primary passes SIGTERM on and a
 * terminal's Ctrl-C reaches it directly: the first signal starts its
 * graceful shutdown, later ones are ignored (the shutdown deadline bounds it)
 * rather than killing it half-way.
 */
const worker = Effect.suspend(() => {
  ProcessMetrics.markShared()
  const ignore = () => {}
  process.on("SIGTERM", ignore)
  process.on("SIGINT", ignore)
  return service
}).pipe(Effect.annotateLogs({ process: `worker-${cluster.worker?.id}`, pid: process.pid }))

/**
 * The primary of several, or the service itself when one process is all
 * there is; every setting checked first (a process of several runs from the
 * same environment, which its primary has checked).
 */
const primary = Effect.zipRight(Preflight.check, processCount).pipe(Effect.flatMap( (count): Effect.Effect<void, unknown> =>
  count <= 1 ? service : Primary.run(count).pipe(
    Effect.annotateLogs({ process: "primary", pid: process.pid }),
    Effect.provide(Layer.merge(AppConfig.layer, Tuning.layerFromEnv()))
  )
))

/**
 * `npm start`: `WEB_CONCURRENCY` service processes on one port (see
 * `ProcessCount`), or one. Everything logs through the configured logger;
 * with several processes each line names its process.
 */
export const main: Effect.Effect<void, unknown> = Effect.flatMap(
  // A bad LOG_LEVEL or LOG_FORMAT leaves no logger to say so: stderr does.
  StartupFailure.handleUnlogged(Logging.fromEnv),
  (logging) => (cluster.isWorker ? worker : primary).pipe(StartupFailure.handle, Effect.provide(logging))
)
