import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { TuningShape } from "../Config/Tuning.js"
import type { RunRow } from "../Contract/Domain/Run.js"
import type { RunStore } from "../RunStore/RunStore.js"
import type { Deadline } from "./Dispatch.js"

/**
 * Runs that wait for a moment rather than a worker: a delayed run (its
 * `availableAt` ahead: a delay, a `runAt`, a retry's backoff) and a run with
 * a time-to-live (`expiresAt`). One loop per instance, not a fiber or a timer
 * per run: it sleeps until the earliest stored moment (`RunStore.nextDue`,
 * two index probes), then makes the due runs ready (and assigns them) and
 * expires the overdue ones, each with one conditional statement, so with
 * any number of instances each run is moved exactly once. 100,000 waiting
 * runs cost one parked fiber.
 *
 * A run this instance creates or retries with an earlier moment rings the
 * `DueAlarm`, which wakes the loop at once to look again. Runs another
 * instance created (or left behind when it crashed) are seen by the sweep
 * (`Supervision.startSweep`), whose one probe a `sweepIntervalMillis` also
 * reads the next moment and rings the alarm when it comes before the loop
 * would look; so the loop itself looks only when something is due, and at
 * least every `lookMillis` should a sweep fail.
 */
export class DueAlarm extends Effect.Service<DueAlarm>()("Scheduler/DueAlarm", {
  effect: Effect.gen(function*() {
    const signal = yield* Queue.sliding<void>(1)
    // When the loop will look next (ms); +Infinity while it is looking, so any ring then is kept.
    let planned = Number.POSITIVE_INFINITY

    /** The earliest moment one of `rows` waits for (ms), or +Infinity. */
    const earliest = (rows: ReadonlyArray<RunRow>): number => {
      let at = Number.POSITIVE_INFINITY
      for (const row of rows) {
        if (row.ended_at !== null) continue
        if (row.delayed && row.available_at !== null) at = Math.min(at, new Date(row.available_at).getTime())
        if (row.expires_at !== null) at = Math.min(at, new Date(row.expires_at).getTime())
      }
      return at
    }

    /** Wakes the loop when `at` (ms) comes before the loop would look. */
    const ringAt = (at: number): Effect.Effect<void> =>
      Effect.suspend(() => at < planned ? Effect.asVoid(Queue.offer(signal, undefined)) : Effect.void)

    /** New or moved runs: wakes the loop when one of them waits for a moment before the loop would look. */
    const ring = (rows: ReadonlyArray<RunRow>): Effect.Effect<void> => Effect.suspend(() => ringAt(earliest(rows)))

    /** The loop will look at `at` (ms); +Infinity while it looks. */
    const plan = (at: number): void => {
      planned = at
    }

    /** Resolves when the alarm rings (at once if it rang since the loop last looked). */
    const rung: Effect.Effect<void> = Queue.take(signal)

    return { ring, ringAt, plan, rung } as const
  })
}) {}

/** The longest the due loop sleeps on its own (the sweep rings it for anything earlier). */
export const lookMillis = 60_000

/**
 * Starts the loop of `DueAlarm` on a fiber of the enclosing scope: each round
 * makes due runs ready (and runs an assignment pass for their environments),
 * expires overdue ones (`expireDue`: the terminal statement, webhooks and
 * the terminal-run stream), then sleeps until the next stored moment, a ring
 * of the alarm, or `lookMillis`, whichever comes first.
 */
export const startDueLoop = (deps: {
  readonly config: TuningShape
  readonly store: RunStore.Service
  readonly alarm: DueAlarm
  readonly expireDue: (now: string) => Effect.Effect<ReadonlyArray<unknown>>
  readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { alarm, assignAndWatch, config, expireDue, store } = deps
    const clock = yield* Effect.clock

    /** Makes the runs due by `now` ready (and places them) and expires the overdue; answers whether a batch was full. */
    const move = (now: number) =>
      Effect.gen(function*() {
        const iso = new Date(now).toISOString()
        const ready = yield* store.promoteDue(iso)
        for (const environmentId of new Set(ready.map((run) => run.environment_id))) yield* assignAndWatch(environmentId)
        const expired = yield* expireDue(iso)
        if (ready.length > 0 || expired.length > 0) {
          yield* Effect.logDebug("due runs moved").pipe(Effect.annotateLogs({ ready: ready.length, expired: expired.length }))
        }
        return ready.length >= config.batchSize || expired.length >= config.batchSize
      })

    // Probe first: an idle round (nothing due yet) is the one index probe of
    // `nextDue`, not the two moving statements besides.
    const round = Effect.gen(function*() {
      alarm.plan(Number.POSITIVE_INFINITY)
      const now = yield* Clock.currentTimeMillis
      let next = yield* store.nextDue
      if (next !== undefined && next.getTime() <= now) {
        // A full batch: more are due now.
        if (yield* move(now)) return
        next = yield* store.nextDue
      }
      // Stored moments may carry microseconds a Date drops: one due by then but not moved is looked at 1 ms on.
      const due = next === undefined ? Number.POSITIVE_INFINITY : next.getTime() <= now ? now + 1 : next.getTime()
      const until = Math.min(due, now + lookMillis)
      alarm.plan(until)
      // Measured again: the clock may have moved during the round's statements.
      const wait = until - clock.unsafeCurrentTimeMillis()
      if (wait > 0) yield* Effect.raceFirst(clock.sleep(Duration.millis(wait)), alarm.rung)
    })

    yield* round.pipe(
      // A failed round only loses time: the next one looks again after a pause.
      Effect.catchAllCause((cause) => Effect.zipRight(Effect.logWarning("due runs round failed", cause), clock.sleep(Duration.seconds(1)))),
      Effect.forever,
      Effect.annotateLogs({ service: "Scheduler/DueAlarm" }),
      Effect.forkScoped
    )
  })
