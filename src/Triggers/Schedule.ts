import * as Cron from "effect/Cron"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * A trigger's schedule: a cron expression read in an IANA time zone, with
 * Effect's own `Cron` module doing the parsing and the next-time arithmetic.
 * Contract side (no server code): the API schema and the pure tick rules.
 *
 * Expressions have 5 fields (minute hour day-of-month month day-of-week), as
 * cron has, or 6 with a leading seconds field (`Cron.parse` accepts both;
 * `* * * * * *` fires every second).
 *
 * Daylight saving, as cron users expect: a time the spring-forward skips
 * (02:30 in Europe/Berlin on the last Sunday of March) fires one hour later
 * in wall time (03:30), once; a particular time the fall-back repeats (02:30
 * on the last Sunday of October) fires at its first occurrence only, while a
 * job with a `*`-based minute or hour field keeps firing by the wall clock
 * through both runs of the repeated hour (see `nextAfter`).
 */

const zoneOf = (name: string): Option.Option<DateTime.TimeZone.Named> =>
  Option.filter(DateTime.zoneFromString(name), DateTime.isTimeZoneNamed)

/** The zone's canonical IANA name (`europe/berlin` → `Europe/Berlin`), or none when unknown. */
export const canonicalZone = (name: string): Option.Option<string> => Option.map(zoneOf(name), (zone) => zone.id)

/** Never matching within `Cron.next`'s search (e.g. 30 February) counts as invalid: nothing would ever fire. */
const matchesSometime = (cron: Cron.Cron): boolean => {
  try {
    Cron.next(cron, new Date(0))
    return true
  } catch {
    return false
  }
}

const cronMessage = "cron must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first)"

export const CronExpression = Schema.String.pipe(
  Schema.maxLength(200, { message: () => "cron must be at most 200 characters" }),
  Schema.filter((expr) => {
    const parsed = Cron.parse(expr, "UTC")
    if (Either.isLeft(parsed)) return `${cronMessage}: ${parsed.left.message.toLowerCase()}`
    return matchesSometime(parsed.right) || "cron never matches a date"
  })
).annotations({
  description: "5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first",
  examples: ["30 2 * * *", "*/15 * * * *", "0 9 * * 1-5"]
})

/** An IANA zone name, stored and answered in its canonical spelling. */
export const TimeZoneName = Schema.transform(
  Schema.String.pipe(
    Schema.maxLength(100, { message: () => "timezone must be at most 100 characters" }),
    Schema.filter((name) => Option.isSome(zoneOf(name)) || "timezone must be an IANA time zone name such as Europe/Berlin or UTC")
  ),
  Schema.String,
  { strict: true, decode: (name) => Option.getOrElse(canonicalZone(name), () => name), encode: (name) => name }
).annotations({ examples: ["UTC", "Europe/Berlin", "America/New_York"] })

export const CatchUp = Schema.Literal("latest", "none").annotations({
  message: () => "catchUp must be \"latest\" or \"none\"",
  description: "After downtime: fire only the latest missed tick (`latest`) or none (`none`)"
})
export type CatchUp = typeof CatchUp.Type

/** What create and PATCH accept: `timezone` defaults to UTC and `catchUp` to `latest`. */
export const ScheduleInput = Schema.Struct({
  cron: Schema.propertySignature(CronExpression).annotations({ missingMessage: () => "cron is required" }),
  timezone: Schema.optional(TimeZoneName),
  catchUp: Schema.optional(CatchUp)
}).annotations({
  identifier: "ScheduleInput",
  description: "Cron schedule: 5 fields (or 6 with seconds first) read in `timezone` (IANA, default UTC); `catchUp` default `latest`"
})
export type ScheduleInput = typeof ScheduleInput.Type

/** A schedule as reads answer it, every field resolved. */
export const Schedule = Schema.Struct({
  cron: Schema.String,
  timezone: Schema.String,
  catchUp: CatchUp
}).annotations({ identifier: "Schedule" })
export type Schedule = typeof Schedule.Type

export const defaultTimeZone = "UTC"
export const defaultCatchUp: CatchUp = "latest"

/** The input with its defaults filled in. */
export const resolve = (input: ScheduleInput): Schedule => ({
  cron: input.cron.trim().split(/\s+/).join(" "),
  timezone: input.timezone ?? defaultTimeZone,
  catchUp: input.catchUp ?? defaultCatchUp
})

/**
 * A schedule ready for tick arithmetic. `wallClock`: the minute or hour
 * field is `*`-based (`*`, or `*` with a step), a job that runs "every so
 * often" rather than at a particular time; as in cron (Vixie cron's rule for
 * wildcard jobs), it runs by the wall clock through both runs of an hour the
 * fall-back repeats, where a particular time (`30 2 * * *`) runs at its
 * first occurrence only.
 */
export interface Ticking {
  readonly expression: string
  readonly cron: Cron.Cron
  readonly wallClock: boolean
}

/** The schedule's cron in its zone; a stored schedule was validated on the way in. */
export const cronOf = (schedule: { readonly cron: string; readonly timezone: string }): Ticking => {
  const fields = schedule.cron.trim().split(/\s+/)
  const [minute, hour] = fields.length === 6 ? fields.slice(1, 3) : fields.slice(0, 2)
  return {
    expression: schedule.cron,
    cron: Cron.unsafeParse(schedule.cron, schedule.timezone),
    wallClock: minute!.startsWith("*") || hour!.startsWith("*")
  }
}

const cronNext = (cron: Cron.Cron, after: number): number | undefined => {
  try {
    return Cron.next(cron, new Date(after)).getTime()
  } catch {
    return undefined
  }
}

/** Wider than any real fall-back (one hour, 30 minutes on Lord Howe Island). */
const transitionWindowMillis = 3 * 3_600_000

/**
 * The fall-back transition within `transitionWindowMillis` of `at`, if any:
 * its instant and the end of the repeated wall-clock stretch after it.
 */
const fallBackNear = (zone: DateTime.TimeZone, at: number): { readonly at: number; readonly repeatEnd: number } | undefined => {
  const offsetAt = (instant: number) => DateTime.zonedOffset(DateTime.unsafeMakeZoned(instant, { timeZone: zone }))
  let lo = at - transitionWindowMillis
  let hi = at + transitionWindowMillis
  const before = offsetAt(lo)
  const after = offsetAt(hi)
  if (after >= before) return undefined
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (offsetAt(mid) === before) lo = mid
    else hi = mid
  }
  return { at: hi, repeatEnd: hi + before - after }
}

/**
 * The first tick strictly after `after` (epoch ms); undefined when none can be found.
 *
 * `Cron.next` alone is wrong around a fall-back (Effect 3.22): it reads an
 * instant inside the repeated hour as the hour's FIRST run, so from 02:10 CET
 * it answers 02:20 CEST, an instant in the past (a schedule set then would
 * fire a spurious missed tick, and the latest-tick search needs `next` to
 * move forward); and it never visits the repeated hour, so `* * * * * *`
 * would stop for an hour. Near a fall-back we therefore answer from the end
 * of the repeated stretch, and for `wallClock` schedules also look for a tick
 * inside it, reading the cron at the zone's offset after the transition.
 */
export const nextAfter = (ticking: Ticking, after: number): number | undefined => {
  const zone = Option.getOrUndefined(ticking.cron.tz)
  const fallBack = zone === undefined || !DateTime.isTimeZoneNamed(zone) || zone.id === "UTC" ? undefined : fallBackNear(zone, after)
  if (fallBack === undefined || after >= fallBack.repeatEnd) return cronNext(ticking.cron, after)
  const regular = cronNext(ticking.cron, after >= fallBack.at ? fallBack.repeatEnd - 1 : after)
  if (!ticking.wallClock) return regular
  const offsetAfter = DateTime.zonedOffset(DateTime.unsafeMakeZoned(fallBack.at, { timeZone: zone! }))
  const repeated = cronNext(
    Cron.unsafeParse(ticking.expression, DateTime.zoneMakeOffset(offsetAfter)),
    Math.max(after, fallBack.at - 1)
  )
  return repeated !== undefined && repeated < fallBack.repeatEnd && (regular === undefined || repeated < regular) ? repeated : regular
}

/**
 * The latest tick at or before `now`, given a tick `from` ≤ `now`. A binary
 * search over `Cron.next` (first tick after an instant, non-decreasing in the
 * instant), so a long downtime costs ~40 `next` calls, not one per missed
 * tick. (`Cron.prev` would do it directly but fails across DST transitions.)
 */
export const latestAtOrBefore = (cron: Ticking, from: number, now: number): number => {
  let lo = from - 1
  let hi = now
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    const tick = nextAfter(cron, mid)
    if (tick !== undefined && tick <= now) lo = mid
    else hi = mid
  }
  return nextAfter(cron, lo) ?? from
}

/**
 * A tick more than this late counts as missed (the service was down or
 * stalled), and `catchUp` applies; a later tick is simply fired late, so a
 * short pause (a restart, a failover) skips nothing.
 */
export const missedAfterMillis = 60_000

/** What to do about a due tick (`due` = the stored `next_run_at`, ≤ `now`). */
export type Decision =
  /** Create the run for tick `scheduledFor` and move `next_run_at` to `next`. */
  | { readonly _tag: "Fire"; readonly scheduledFor: number; readonly next: number | undefined }
  /** Move `next_run_at` to `next` without a run (missed ticks under `catchUp: "none"`). */
  | { readonly _tag: "Skip"; readonly next: number | undefined }

export const decide = (cron: Ticking, catchUp: CatchUp, due: number, now: number): Decision => {
  if (now - due <= missedAfterMillis) return { _tag: "Fire", scheduledFor: due, next: nextAfter(cron, due) }
  if (catchUp === "none") return { _tag: "Skip", next: nextAfter(cron, now) }
  const latest = latestAtOrBefore(cron, due, now)
  return { _tag: "Fire", scheduledFor: latest, next: nextAfter(cron, latest) }
}
