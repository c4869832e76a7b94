import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"

/** A signal during start-up ends the process within this long, whatever step it is in. */
export const startupStopMillis = 3_000

/**
 * What a service process says and does when it is told to stop (the first
 * SIGTERM or SIGINT; the runtime's own handler interrupts the program in the
 * same tick). Before the service listens, a start-up step may not give way
 * (the embedded database finishing its creation, the migrations): the
 * process says so and, if it has not stopped within `startupStopMillis`,
 * exits anyway, as a start that was never serving has nothing to hand back.
 * Once it serves, the HTTP server says what it waits for (see
 * `Http/DrainingServer`) and the shutdown deadline bounds it. Either way the
 * last line says when it stopped and how long stopping took.
 */
export const supervise = <A, E, R>(start: (started: Effect.Effect<void>) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect)
    let serving = false
    let signalledAt: number | undefined
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalledAt !== undefined) return
      signalledAt = Date.now()
      if (serving) return
      log(Effect.logInfo("stopping during start-up: the step in progress is given up").pipe(
        Effect.annotateLogs({ signal, exitsWithinMillis: startupStopMillis })
      ))
      setTimeout(() => {
        log(Effect.logWarning("start-up did not give way in time; exiting now"))
        // The log line is written synchronously by the logger; exit after it.
        process.exit(1)
      }, startupStopMillis).unref()
    }
    const listeners = [["SIGTERM", () => onSignal("SIGTERM")], ["SIGINT", () => onSignal("SIGINT")]] as const
    for (const [signal, listener] of listeners) process.on(signal, listener)
    const started = Effect.sync(() => {
      serving = true
    })
    return yield* start(started).pipe(
      Effect.onExit(() =>
        Effect.suspend(() => {
          for (const [signal, listener] of listeners) process.removeListener(signal, listener)
          return signalledAt === undefined
            ? Effect.void
            : Effect.logInfo("stopped").pipe(Effect.annotateLogs({ stoppingMillis: Date.now() - signalledAt }))
        })
      )
    )
  })
