import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { AuditLog } from "../../src/Audit/AuditLog.js"
import { CurrentActor } from "../../src/Contract/Security.js"
import { testConfig as configWith } from "../support/TestConfig.js"
import { SecretBox } from "../../src/Crypto/SecretBox.js"
import { Policy } from "../../src/Tenancy/Policy.js"
import type { ScheduleInput } from "../../src/Contract/Schedule.js"
import { ScheduleFiring, ScheduleFiringConfig } from "../../src/Triggers/ScheduleFiring.js"
import { Triggers } from "../../src/Triggers/Triggers.js"
import { TriggersRepo } from "../../src/Triggers/TriggersRepo.js"
import { UrlGuard } from "../../src/Webhooks/UrlGuard.js"
import * as SqlRunStore from "../../src/RunStore/SqlRunStore.js"
import { Assignment, Wakeups } from "../../src/Scheduler/Dispatch.js"
import { RunEvents, RunFeed } from "../../src/Scheduler/RunFeed.js"
import * as Tuning from "../../src/Config/Tuning.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import { TerminalHandoff } from "../../src/Scheduler/TerminalHandoff.js"
import { DueAlarm } from "../../src/Scheduler/Due.js"
import { Transitions } from "../../src/Scheduler/Transitions.js"
import { databaseLayer, eventually, seedTenant, settle } from "../scheduler/support.js"

/**
 * The scheduling fiber under the `TestClock`: days of ticks, both DST
 * transitions and downtimes run in milliseconds. The tests share one
 * embedded database; each sets its clock BEFORE its fiber starts (it reads the
 * due ticks at "now"). After an `adjust` the woken fiber still has database
 * work to do, hence `eventually` (real-time polling) and `settle` for checks
 * that nothing fired. The clock is only ever moved onto a tick or between
 * ticks, never more than a minute past a due tick while a fiber runs, so
 * every tick is on time unless a test stops the fiber on purpose.
 */

/** No supervision sweep: only the scheduling fiber reacts to the clock. */
const noSweep = { sweepIntervalMillis: 24 * 3_600_000 }

/**
 * Run placement and supervision as the scheduling fiber uses them, without
 * the scheduler's other loops (worker presence every 2 s would wake tens of
 * thousands of times over a virtual day).
 */
const supervision = Supervisor.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(Assignment.Default, Transitions.Default)),
  Layer.provideMerge(Layer.mergeAll(Wakeups.Default, RunEvents.Default, RunFeed.Default, DueAlarm.Default, SqlRunStore.layer)),
  Layer.provide(Tuning.layer(noSweep)),
  Layer.provide(TerminalHandoff.none)
)

/**
 * One instance's scheduling fiber (with its own supervision). It sleeps until
 * the next tick however far away, not at most a minute: schedule changes
 * reach it by NOTIFY, which is what these tests rely on.
 */
const instance = Layer.fresh(
  ScheduleFiring.Default.pipe(
    Layer.provide(supervision),
    Layer.provide(Layer.succeed(ScheduleFiringConfig, { maxSleepMillis: 7 * 24 * 3_600_000 }))
  )
)

/** The trigger use cases (create, PATCH, delete), which signal schedule changes as over HTTP. */
const useCases = Triggers.Default.pipe(
  Layer.provide(Layer.mergeAll(TriggersRepo.Default, AuditLog.Default, SecretBox.Default, UrlGuard.Default)),
  Layer.provideMerge(Policy.Default),
  Layer.provide(configWith())
)

interface Seeded {
  readonly environmentId: string
  readonly userId: string
}

/** A user owning one environment. */
const seed = Effect.map(seedTenant, ({ environmentId, userId }): Seeded => ({ environmentId, userId }))

/**
 * Runs `body` at `startIso` on the TestClock with one scheduling fiber (two
 * with `instances: 2`, none with `fiber: false`), started after the clock is set.
 */
const at = <A, E, R>(
  startIso: string,
  body: (seeded: Seeded) => Effect.Effect<A, E, R>,
  options: { readonly instances?: 1 | 2; readonly fiber?: boolean } = {}
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse(startIso))
    const seeded = yield* seed
    const fibers = options.fiber === false ? Layer.empty : options.instances === 2 ? Layer.merge(instance, instance) : instance
    return yield* body(seeded).pipe(Effect.provide(fibers), Effect.scoped)
  }).pipe(
    // The database is shared by the file's tests, each on its own clock: no schedule outlives its test.
    Effect.ensuring(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE triggers SET schedule_cron = NULL, next_run_at = NULL`).pipe(Effect.orDie)),
    Effect.provide(useCases)
  )

const asOwner = (seeded: Seeded) => Effect.provideService(CurrentActor, { _tag: "User", userId: seeded.userId, sessionHash: "test" })

const createScheduled = (seeded: Seeded, schedule: ScheduleInput, input: { readonly [k: string]: string } = { job: "nightly" }) =>
  Effect.flatMap(Triggers, (triggers) => triggers.create(seeded.environmentId, { name: "scheduled", input, schedule })).pipe(
    asOwner(seeded),
    Effect.orDie
  )

const patchSchedule = (seeded: Seeded, triggerId: string, schedule: ScheduleInput | null) =>
  Effect.flatMap(Triggers, (triggers) => triggers.update(triggerId, { schedule })).pipe(asOwner(seeded), Effect.orDie)

/** Moves the TestClock forward to `iso` (the scheduling fibers wake on the way). */
const advanceTo = (iso: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const target = Date.parse(iso)
    expect(target, `advance to ${iso}`).toBeGreaterThanOrEqual(now)
    yield* TestClock.adjust(target - now)
  })

interface TickRun {
  readonly scheduled_for: Date
  readonly input: unknown
  readonly actor_type: string
  readonly actor_id: string | null
  readonly metadata: { readonly scheduledFor?: string; readonly triggerId?: string }
}

/** The trigger's runs with their `run.requested` audit rows, oldest tick first. */
const runsOf = (triggerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TickRun>`
      SELECT r.scheduled_for, r.input, a.actor_type, a.actor_id, a.metadata FROM runs r
      JOIN audit_log a ON a.target_id = r.id AND a.action = 'run.requested'
      WHERE r.trigger_id = ${triggerId} ORDER BY r.scheduled_for`).pipe(Effect.orDie)

const ticksOf = (triggerId: string) => Effect.map(runsOf(triggerId), (rows) => rows.map((r) => r.scheduled_for.toISOString()))

const nextRunAt = (triggerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ next_run_at: Date | null }>`SELECT next_run_at FROM triggers WHERE id = ${triggerId}`).pipe(
    Effect.map((rows) => rows[0]?.next_run_at?.toISOString() ?? null),
    Effect.orDie
  )

/** Advances to each instant in turn; a tick there must fire (once), anything else must fire nothing. */
const walk = (triggerId: string, steps: ReadonlyArray<{ readonly at: string; readonly fires: boolean }>) =>
  Effect.gen(function*() {
    let count = (yield* runsOf(triggerId)).length
    for (const step of steps) {
      yield* advanceTo(step.at)
      if (step.fires) {
        count++
        const ticks = yield* eventually(ticksOf(triggerId), (rows) => rows.length >= count)
        expect(ticks.at(-1), `tick at ${step.at}`).toBe(new Date(step.at).toISOString())
      } else {
        yield* settle
      }
      expect((yield* runsOf(triggerId)).length, `runs after ${step.at}`).toBe(count)
    }
  })

const iso = (s: string) => new Date(s).toISOString()

withLayer(databaseLayer)("scheduled triggers under the TestClock", (it) => {
  it.scoped("each tick fires exactly once, on time, with two instances' fibers racing for it; actor system, audit scheduledFor", () =>
    at("2026-05-01T09:58:00Z", (seeded) =>
      Effect.gen(function*() {
        const trigger = yield* createScheduled(seeded, { cron: "*/15 * * * *" }, { job: "sync" })
        expect(trigger.nextRunAt?.toISOString()).toBe(iso("2026-05-01T10:00:00Z"))
        const expected = Array.from({ length: 8 }, (_, i) => new Date(Date.parse("2026-05-01T10:00:00Z") + i * 900_000).toISOString())
        yield* walk(trigger.id, [
          { at: "2026-05-01T09:59:59Z", fires: false },
          ...expected.flatMap((tick) => [
            { at: tick, fires: true },
            // Between ticks: neither instance fires the same tick again.
            { at: new Date(Date.parse(tick) + 7 * 60_000).toISOString(), fires: false }
          ])
        ])
        const runs = yield* runsOf(trigger.id)
        expect(runs.map((r) => r.scheduled_for.toISOString())).toEqual(expected)
        for (const run of runs) {
          expect(run).toMatchObject({ input: { job: "sync" }, actor_type: "system", actor_id: null })
          expect(run.metadata).toMatchObject({ triggerId: trigger.id, scheduledFor: run.scheduled_for.toISOString() })
        }
        expect(yield* nextRunAt(trigger.id)).toBe(iso("2026-05-01T12:00:00Z"))
      }), { instances: 2 }))

  describe("daylight saving: a daily 02:30 job runs once on the transition day", () => {
    it.scoped("Europe/Berlin spring-forward (29 March 2026): at 03:30 CEST, the skipped 02:30's hour later", () =>
      at("2026-03-28T12:00:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "30 2 * * *", timezone: "Europe/Berlin" })
          yield* walk(trigger.id, [
            { at: "2026-03-29T00:30:00Z", fires: false }, // 01:30 CET
            { at: "2026-03-29T01:00:00Z", fires: false }, // 03:00 CEST: the clock jumped over 02:30
            { at: "2026-03-29T01:30:00Z", fires: true }, // 03:30 CEST
            { at: "2026-03-29T21:59:00Z", fires: false }, // 23:59 CEST, still the 29th
            { at: "2026-03-30T00:30:00Z", fires: true } // 02:30 CEST on the 30th
          ])
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-03-29T01:30:00Z"), iso("2026-03-30T00:30:00Z")])
        })))

    it.scoped("Europe/Berlin fall-back (25 October 2026): at the first 02:30 (CEST), not again at 02:30 CET", () =>
      at("2026-10-24T12:00:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "30 2 * * *", timezone: "Europe/Berlin" })
          yield* walk(trigger.id, [
            { at: "2026-10-25T00:30:00Z", fires: true }, // 02:30 CEST
            { at: "2026-10-25T01:30:00Z", fires: false }, // 02:30 CET, the repeat
            { at: "2026-10-25T01:31:00Z", fires: false },
            { at: "2026-10-26T01:30:00Z", fires: true } // 02:30 CET on the 26th
          ])
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-10-25T00:30:00Z"), iso("2026-10-26T01:30:00Z")])
        })))

    it.scoped("America/New_York spring-forward (8 March 2026): at 03:30 EDT", () =>
      at("2026-03-07T12:00:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "30 2 * * *", timezone: "America/New_York" })
          yield* walk(trigger.id, [
            { at: "2026-03-08T06:59:00Z", fires: false }, // 01:59 EST
            { at: "2026-03-08T07:00:00Z", fires: false }, // 03:00 EDT
            { at: "2026-03-08T07:30:00Z", fires: true }, // 03:30 EDT
            { at: "2026-03-09T06:30:00Z", fires: true } // 02:30 EDT on the 9th
          ])
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-03-08T07:30:00Z"), iso("2026-03-09T06:30:00Z")])
        })))

    it.scoped("America/New_York fall-back (1 November 2026): 02:30 once (EST); 01:30, which repeats, at its first occurrence only", () =>
      at("2026-10-31T12:00:00Z", (seeded) =>
        Effect.gen(function*() {
          const late = yield* createScheduled(seeded, { cron: "30 2 * * *", timezone: "America/New_York" })
          const repeated = yield* createScheduled(seeded, { cron: "30 1 * * *", timezone: "America/New_York" })
          yield* advanceTo("2026-11-01T05:30:00Z") // 01:30 EDT
          yield* eventually(ticksOf(repeated.id), (ticks) => ticks.length === 1)
          yield* advanceTo("2026-11-01T06:30:00Z") // 01:30 EST, the repeat
          yield* settle
          yield* advanceTo("2026-11-01T07:30:00Z") // 02:30 EST
          yield* eventually(ticksOf(late.id), (ticks) => ticks.length === 1)
          yield* advanceTo("2026-11-02T06:30:00Z")
          yield* eventually(ticksOf(repeated.id), (ticks) => ticks.length === 2)
          yield* advanceTo("2026-11-02T07:30:00Z")
          yield* eventually(ticksOf(late.id), (ticks) => ticks.length === 2)
          expect(yield* ticksOf(repeated.id)).toEqual([iso("2026-11-01T05:30:00Z"), iso("2026-11-02T06:30:00Z")])
          expect(yield* ticksOf(late.id)).toEqual([iso("2026-11-01T07:30:00Z"), iso("2026-11-02T07:30:00Z")])
        })))

    it.scoped("an hourly job keeps its hours through the Berlin fall-back: 02:00 CEST and 02:00 CET both fire", () =>
      at("2026-10-24T23:30:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "0 * * * *", timezone: "Europe/Berlin" })
          yield* walk(trigger.id, [
            { at: "2026-10-25T00:00:00Z", fires: true }, // 02:00 CEST
            { at: "2026-10-25T00:30:00Z", fires: false },
            { at: "2026-10-25T01:00:00Z", fires: true }, // 02:00 CET
            { at: "2026-10-25T01:30:00Z", fires: false },
            { at: "2026-10-25T02:00:00Z", fires: true } // 03:00 CET
          ])
        })))
  })

  describe("catch-up after downtime (no fiber running while the clock moves)", () => {
    /** The service was down until `untilIso` (no fiber ran): moves the clock there, then starts an instance. */
    const downtime = (untilIso: string) => Effect.zipRight(advanceTo(untilIso), Layer.build(instance))

    it.scoped("latest: only the latest missed tick fires, then the schedule goes on", () =>
      at("2026-05-01T09:30:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "0 * * * *" })
          // Down from 09:30 to 14:20: the 10:00 … 14:00 ticks are missed.
          yield* downtime("2026-05-01T14:20:00Z")
          yield* eventually(ticksOf(trigger.id), (ticks) => ticks.length >= 1)
          yield* settle
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-05-01T14:00:00Z")])
          expect(yield* nextRunAt(trigger.id)).toBe(iso("2026-05-01T15:00:00Z"))
          yield* walk(trigger.id, [{ at: "2026-05-01T15:00:00Z", fires: true }])
        }), { fiber: false }))

    it.scoped("none: no missed tick fires; the schedule resumes at the next tick", () =>
      at("2026-05-01T09:30:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "0 * * * *", catchUp: "none" })
          yield* downtime("2026-05-01T14:20:00Z")
          yield* eventually(nextRunAt(trigger.id), (next) => next === iso("2026-05-01T15:00:00Z"))
          yield* settle
          expect(yield* ticksOf(trigger.id)).toEqual([])
          yield* walk(trigger.id, [{ at: "2026-05-01T15:00:00Z", fires: true }, { at: "2026-05-01T15:59:00Z", fires: false }])
        }), { fiber: false }))

    it.scoped("a restart within a minute of a tick fires that tick, whatever catchUp says", () =>
      at("2026-05-01T09:30:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "0 * * * *", catchUp: "none" })
          yield* downtime("2026-05-01T10:00:45Z")
          yield* eventually(ticksOf(trigger.id), (ticks) => ticks.length === 1)
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-05-01T10:00:00Z")])
        }), { fiber: false }))
  })

  describe("stopping", () => {
    it.scoped("PATCH schedule: null stops it at once; a new schedule fires from its next tick", () =>
      at("2026-05-01T09:55:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "*/10 * * * *" })
          yield* walk(trigger.id, [{ at: "2026-05-01T10:00:00Z", fires: true }])
          const stopped = yield* patchSchedule(seeded, trigger.id, null)
          expect(stopped).toMatchObject({ schedule: null, nextRunAt: null })
          yield* walk(trigger.id, [
            { at: "2026-05-01T10:10:00Z", fires: false },
            { at: "2026-05-01T10:20:00Z", fires: false },
            { at: "2026-05-01T11:00:00Z", fires: false }
          ])
          const again = yield* patchSchedule(seeded, trigger.id, { cron: "*/10 * * * *" })
          expect(again.nextRunAt?.toISOString()).toBe(iso("2026-05-01T11:10:00Z"))
          yield* walk(trigger.id, [{ at: "2026-05-01T11:10:00Z", fires: true }])
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-05-01T10:00:00Z"), iso("2026-05-01T11:10:00Z")])
        })))

    it.scoped("a tick whose input does not match the trigger's inputSchema is skipped: no run, the schedule moves on, other schedules keep firing", () =>
      at("2026-05-01T09:55:00Z", (seeded) =>
        Effect.gen(function*() {
          // Declared without an input of its own: a tick (which has no input but the trigger's) cannot satisfy it.
          const typed = yield* Effect.flatMap(Triggers, (triggers) =>
            triggers.create(seeded.environmentId, {
              name: "typed",
              inputSchema: { type: "object", required: ["ref"] },
              schedule: { cron: "*/10 * * * *" }
            })).pipe(asOwner(seeded), Effect.orDie)
          const plain = yield* createScheduled(seeded, { cron: "*/10 * * * *" })
          yield* walk(plain.id, [{ at: "2026-05-01T10:00:00Z", fires: true }, { at: "2026-05-01T10:10:00Z", fires: true }])
          expect(yield* runsOf(typed.id)).toEqual([])
          // Skipped, not retried forever: the schedule is at its next tick.
          yield* eventually(nextRunAt(typed.id), (next) => next === iso("2026-05-01T10:20:00Z"))
          // Given a matching input, the next tick fires.
          yield* Effect.flatMap(Triggers, (triggers) => triggers.update(typed.id, { input: { ref: "main" } })).pipe(asOwner(seeded), Effect.orDie)
          yield* walk(typed.id, [{ at: "2026-05-01T10:20:00Z", fires: true }])
          expect((yield* runsOf(typed.id)).map((r) => r.input)).toEqual([{ ref: "main" }])
        })))

    it.scoped("a soft-deleted trigger never fires again", () =>
      at("2026-05-01T09:55:00Z", (seeded) =>
        Effect.gen(function*() {
          const trigger = yield* createScheduled(seeded, { cron: "*/10 * * * *" })
          yield* walk(trigger.id, [{ at: "2026-05-01T10:00:00Z", fires: true }])
          // A trigger with active runs cannot be deleted: end the tick's run first.
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE runs SET status = 'cancelled', ended_at = now() WHERE trigger_id = ${trigger.id}`.pipe(Effect.orDie)
          yield* Effect.flatMap(Triggers, (triggers) => triggers.remove(trigger.id)).pipe(asOwner(seeded), Effect.orDie)
          yield* walk(trigger.id, [
            { at: "2026-05-01T10:10:00Z", fires: false },
            { at: "2026-05-01T10:20:00Z", fires: false },
            { at: "2026-05-01T12:00:00Z", fires: false }
          ])
          expect(yield* ticksOf(trigger.id)).toEqual([iso("2026-05-01T10:00:00Z")])
        })))
  })
})
