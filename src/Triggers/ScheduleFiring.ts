import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"
import * as Metrics from "../Observability/Metrics.js"
import { Supervisor } from "../Scheduler/Supervision.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { toMillis } from "../Db/Time.js"
import { CatchUp, defaultCatchUp, defaultTimeZone } from "../Contract/Schedule.js"
import * as Ticks from "./Ticks.js"
import { schedulesChannel } from "./ScheduleSignal.js"

/** A scheduled trigger whose next tick is due. */
const DueRow = Schema.Struct({
  id: Schema.String,
  environment_id: Schema.String,
  schedule_cron: Schema.String,
  schedule_timezone: Schema.NullOr(Schema.String),
  schedule_catch_up: Schema.NullOr(CatchUp),
  next_run_at: Schema.DateFromSelf
})
type DueRow = typeof DueRow.Type

/** The fiber never sleeps longer than this, so a lost signal delays a new schedule by at most a minute. */
export const maxSleepMillis = 60_000

/**
 * Tuning of the scheduling fiber, with its defaults. Only `TestClock` tests
 * change it: a day of virtual time then costs one wake-up per tick rather
 * than one per minute (schedule changes still arrive by NOTIFY).
 */
export class ScheduleFiringConfig extends Context.Reference<ScheduleFiringConfig>()("Triggers/ScheduleFiringConfig", {
  defaultValue: (): { readonly maxSleepMillis: number } => ({ maxSleepMillis })
}) {}
/** Due triggers read per statement; a full batch is followed at once by the next. */
const batchSize = 500
/** Triggers fired at once (each tick is one statement). */
const concurrency = 16

/**
 * Fires scheduled triggers: ONE fiber per instance, however many triggers
 * are scheduled. It sleeps until the earliest `next_run_at` (at most
 * `maxSleepMillis`), or until a schedule changes on any instance (LISTEN on
 * `schedulesChannel`), then fires every due tick.
 *
 * A tick's run is created by the statement that moves the trigger's
 * `next_run_at` on from the value read (`RunStore.createMany` with
 * `advance`), through the same path as `POST /run`: placement, audit
 * `run.requested` (actor `system`, `metadata.scheduledFor`), supervision and
 * metrics. Every instance may try the same tick; exactly one statement moves
 * it on and creates the run, the others find it moved and create nothing. A
 * crash before that statement commits leaves `next_run_at` where it was, so
 * the tick fires on the next wake-up of any instance: neither skipped nor
 * doubled. A tick more than `Ticks.missedAfterMillis` late follows the
 * trigger's `catchUp` (`Ticks.decide`).
 */
export class ScheduleFiring extends Effect.Service<ScheduleFiring>()("Triggers/ScheduleFiring", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const supervisor = yield* Supervisor
    const notifications = yield* Notifications
    const changed = yield* Queue.sliding<void>(1)
    const config = yield* ScheduleFiringConfig

    const due = SqlSchema.findAll({
      Request: Schema.Number,
      Result: DueRow,
      execute: (now) =>
        sql`
        SELECT id, environment_id, schedule_cron, schedule_timezone, schedule_catch_up, next_run_at FROM triggers
        WHERE schedule_cron IS NOT NULL AND deleted_at IS NULL AND next_run_at <= ${new Date(now).toISOString()}::timestamptz
        ORDER BY next_run_at LIMIT ${batchSize}`
    })

    const earliestTick = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ at: Schema.NullOr(Schema.DateFromSelf) }),
      execute: () => sql`SELECT min(next_run_at) AS at FROM triggers WHERE schedule_cron IS NOT NULL AND deleted_at IS NULL`
    })
    const earliest = Effect.map(earliestTick(undefined), (row) => row.at === null ? undefined : toMillis(row.at))

    /** Moves the schedule on without a run (missed ticks under `catchUp: "none"`); false when another instance did. */
    const skip = (row: DueRow, from: number, to: number | undefined) =>
      sql`
        UPDATE triggers SET next_run_at = ${to === undefined ? null : new Date(to).toISOString()}::timestamptz
        WHERE id = ${row.id} AND deleted_at IS NULL AND schedule_cron IS NOT NULL
          AND next_run_at = ${new Date(from).toISOString()}::timestamptz
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

    /**
     * The tick's run, if this statement moved the schedule on from `from`;
     * false when another did. A tick whose input (the trigger's own) does
     * not match the trigger's `inputSchema` creates no run: the tick is
     * skipped (the schedule moves on to the next one) with a warning naming
     * the failing paths, as the run request would have been refused.
     */
    const fire = (row: DueRow, from: number, scheduledFor: number, to: number | undefined): Effect.Effect<boolean, unknown> =>
      supervisor.createRuns(row.id, [{ input: undefined, idempotencyKey: undefined, actor: { _tag: "System" }, scheduledFor }], {
        environmentId: row.environment_id,
        advance: { from, to }
      }).pipe(
        Effect.flatMap(([requested]) => {
          if (requested instanceof ValidationError) {
            return Effect.zipLeft(
              skip(row, from, to),
              Effect.logWarning("schedule tick skipped: the trigger's input does not match its inputSchema").pipe(
                Effect.annotateLogs({ scheduledFor: new Date(scheduledFor).toISOString(), reason: requested.error })
              )
            )
          }
          if (requested?.created === true) Metrics.record.runsRequested(row.environment_id, 1)
          return Effect.succeed(requested !== undefined)
        })
      )

    /** A trigger's due ticks, one statement each, until its next tick is ahead or another instance took one. */
    const fireDue = (row: DueRow) =>
      Effect.gen(function*() {
        const cron = Ticks.cronOf({ cron: row.schedule_cron, timezone: row.schedule_timezone ?? defaultTimeZone })
        const catchUp = row.schedule_catch_up ?? defaultCatchUp
        let tick: number | undefined = toMillis(row.next_run_at)
        while (tick !== undefined && tick <= (yield* Clock.currentTimeMillis)) {
          const decision = Ticks.decide(cron, catchUp, tick, yield* Clock.currentTimeMillis)
          if (decision._tag === "Fire") {
            if (!(yield* fire(row, tick, decision.scheduledFor, decision.next))) return
            if (decision.scheduledFor !== tick) {
              yield* Effect.logInfo("missed schedule ticks: fired the latest").pipe(
                Effect.annotateLogs({ missedFrom: new Date(tick).toISOString(), scheduledFor: new Date(decision.scheduledFor).toISOString() })
              )
            }
          } else {
            if (!(yield* skip(row, tick, decision.next))) return
            yield* Effect.logInfo("missed schedule ticks skipped (catchUp none)").pipe(
              Effect.annotateLogs({ missedFrom: new Date(tick).toISOString() })
            )
          }
          tick = decision.next
        }
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("schedule tick not fired; trying again at the next wake-up", cause)),
        Effect.annotateLogs({ triggerId: row.id })
      )

    /** One pass: every due tick fired; answers how long to sleep. */
    const pass: Effect.Effect<number, unknown> = Effect.gen(function*() {
      yield* Queue.takeAll(changed)
      while (true) {
        const rows = yield* due(yield* Clock.currentTimeMillis)
        yield* Effect.forEach(rows, fireDue, { concurrency, discard: true })
        if (rows.length < batchSize) break
      }
      const next = yield* earliest
      const now = yield* Clock.currentTimeMillis
      return next === undefined ? config.maxSleepMillis : Math.min(config.maxSleepMillis, Math.max(0, next - now))
    })

    const loop = pass.pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("scheduled triggers not read; trying again", cause), 1000)),
      Effect.flatMap((millis) => Effect.raceFirst(Effect.sleep(Duration.millis(millis)), Queue.take(changed))),
      Effect.forever
    )

    // A schedule set, changed or removed on any instance (this one included) re-arms the fiber.
    const listening = yield* Deferred.make<void>()
    yield* notifications.listen(schedulesChannel).pipe(
      Stream.runForEach(() => Effect.zipRight(Deferred.succeed(listening, undefined), Queue.offer(changed, undefined))),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for schedule changes failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    // LISTEN starts on a connection of its own, asynchronously: a change announced
    // before it is live would be missed until the next wake-up (up to
    // maxSleepMillis). So the fiber announces on the channel itself until its own
    // notice comes back, and only then reads the schedules: every change after that
    // read reaches it. At most 5 s of real time (the test clock must not stall a
    // start), then it goes on and relies on maxSleepMillis.
    const awaitListening = notifications.notify(schedulesChannel, "listening").pipe(
      Effect.ignore,
      Effect.zipRight(Effect.timeoutOption(Deferred.await(listening), "100 millis")),
      Effect.repeat({ until: Option.isSome, times: 50 }),
      Effect.withClock(Clock.make())
    )
    yield* awaitListening.pipe(Effect.zipRight(loop), Effect.interruptible, Effect.forkScoped)
    return {} as const
  })
}) {}
