import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import cluster, { type Worker } from "node:cluster"
import * as KeyCheck from "../Config/KeyCheck.js"
import { SecretBox } from "../Crypto/SecretBox.js"
import * as Database from "../Db/Database.js"
import { Tuning } from "../Config/Tuning.js"
import * as ProcessMetrics from "../Observability/ProcessMetrics.js"
import * as MetricsBroker from "./MetricsBroker.js"

export class ProcessFailedToStart extends Data.TaggedError("ProcessFailedToStart")<{ readonly message: string }> {}

interface Exited {
  readonly code: number | null
  readonly signal: string | null
}

interface Started {
  readonly worker: Worker
  readonly listening: Deferred.Deferred<void>
  readonly exited: Deferred.Deferred<Exited>
}

/**
 * The once-per-start work, done before any service process starts so they
 * do not race on it: the schema's migrations (the `Database` layer runs
 * them) and the key check. Each process runs both again and finds nothing to do.
 */
const prepare = KeyCheck.check.pipe(
  Effect.provide(SecretBox.Default),
  Effect.provide(Database.layer),
  Effect.withSpan("Processes.prepare")
)

const start = (slotNumber: number) => Effect.gen(function*() {
  const listening = yield* Deferred.make<void>()
  const exited = yield* Deferred.make<Exited>()
  const worker = cluster.fork({ [ProcessMetrics.slotVariable]: String(slotNumber) })
  worker.once("listening", () => Deferred.unsafeDone(listening, Exit.void))
  worker.once("exit", (code, signal) => Deferred.unsafeDone(exited, Exit.succeed({ code, signal })))
  yield* Effect.logInfo("service process started").pipe(Effect.annotateLogs({ worker: worker.id, workerPid: worker.process.pid }))
  return { worker, listening, exited } satisfies Started
})

/**
 * SIGTERM, the process's own graceful shutdown (readiness 503 for
 * SHUTDOWN_DELAY_SECONDS, in-flight requests finish), and its own deadline;
 * past that and a margin, SIGKILL.
 */
const stop = (started: Started, grace: Duration.Duration) =>
  Effect.gen(function*() {
    if (yield* Deferred.isDone(started.exited)) return
    yield* Effect.logInfo("stopping service process").pipe(
      Effect.annotateLogs({ worker: started.worker.id, workerPid: started.worker.process.pid, killedAfterSeconds: Duration.toSeconds(grace) })
    )
    started.worker.process.kill("SIGTERM")
    const exited = yield* Deferred.await(started.exited).pipe(Effect.timeoutOption(grace))
    if (exited._tag === "None") {
      yield* Effect.logError("service process did not stop in time; killing it").pipe(
        Effect.annotateLogs({ worker: started.worker.id, workerPid: started.worker.process.pid })
      )
      started.worker.process.kill("SIGKILL")
      yield* Deferred.await(started.exited)
    }
  })

const restartDelay = (failures: number) => Duration.millis(Math.min(30_000, 500 * 2 ** Math.min(failures, 10)))
// A process that ran this long before it ended was not crash-looping: the next restart is quick again.
const healthyAfterMs = 60_000

/**
 * One slot of the process pool: starts a service process and, when it ends
 * on its own, starts another after a backoff (0.5 s, doubling to 30 s). If
 * no process of this start has ever listened, one that ends fails the start
 * instead: a bad port or configuration would fail every replacement too.
 */
const slot = (slotNumber: number, servedOnce: Deferred.Deferred<void>, grace: Duration.Duration) =>
  Effect.gen(function*() {
    let failures = 0
    for (;;) {
      const startedAt = Date.now()
      const { code, signal, pid, id } = yield* Effect.acquireUseRelease(
        start(slotNumber),
        (started) =>
          Effect.gen(function*() {
            const serving = yield* Deferred.await(started.listening).pipe(
              Effect.zipRight(Deferred.succeed(servedOnce, undefined)),
              Effect.fork
            )
            const exited = yield* Deferred.await(started.exited)
            yield* Fiber.interrupt(serving)
            return { ...exited, pid: started.worker.process.pid, id: started.worker.id }
          }),
        (started, exit) => Exit.isInterrupted(exit) ? stop(started, grace) : Effect.void
      )
      if (!(yield* Deferred.isDone(servedOnce))) {
        return yield* new ProcessFailedToStart({
          message: `a service process ended before the service started (exit code ${code}, signal ${signal}); its log says why`
        })
      }
      failures = Date.now() - startedAt >= healthyAfterMs ? 0 : failures + 1
      const delay = restartDelay(failures)
      yield* Effect.logError("service process ended; starting another").pipe(
        Effect.annotateLogs({ worker: id, workerPid: pid, code, signal, restartInMs: Duration.toMillis(delay) })
      )
      yield* Effect.sleep(delay)
    }
  })

/**
 * The primary of `WEB_CONCURRENCY` service processes (node:cluster): they
 * share the listening port, the primary hands each new connection to one of
 * them. It prepares the database, starts `count` processes, replaces any that
 * ends, answers metrics gathering, and on SIGTERM/SIGINT (which interrupt it,
 * see `NodeRuntime.runMain`) stops them all at once, gracefully, and returns
 * when they have exited.
 */
export const run = (count: number) =>
  Effect.gen(function*() {
    const tuning = yield* Tuning
    // The first SIGTERM/SIGINT interrupts this program (runMain) and then stops listening; a
    // later one would kill the primary on the spot and its processes with it, mid-drain.
    yield* Effect.sync(() => {
      const ignore = () => {}
      process.on("SIGTERM", ignore)
      process.on("SIGINT", ignore)
    })
    yield* prepare
    // Structured clone on the IPC channel: metric series carry +Inf bucket boundaries.
    cluster.setupPrimary({ serialization: "advanced" })
    yield* MetricsBroker.broker
    yield* Effect.logInfo("starting service processes").pipe(Effect.annotateLogs({ processes: count }))
    const servedOnce = yield* Deferred.make<void>()
    const grace = Duration.seconds(tuning.shutdownDelaySeconds + tuning.shutdownTimeoutSeconds + 5)
    yield* Effect.forEach(Array.from({ length: count }, (_, i) => i + 1), (n) => slot(n, servedOnce, grace), {
      concurrency: "unbounded",
      discard: true
    })
  }).pipe(
    Effect.onInterrupt(() => Effect.logInfo("service processes stopped")),
    Effect.scoped
  )
