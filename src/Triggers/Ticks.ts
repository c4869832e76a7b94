import * as Cron from "effect/Cron"
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import type { CatchUp } from "../Contract/Schedule.js"

/**
 * A schedule's ticks: when its cron fires next in its IANA zone, and what to
 * do about a tick that came due (`decide`). The schema a schedule is written
 * in is the contract's (`Contract/Schedule`).
 *
 * Daylight saving, as cron users expect: a time the spring-forward skips
 * (02:30 in Europe/Berlin on the last Sunday of March) fires one hour later
 * in wall time (03:30), once; a particular time the fall-back repeats (02:30
 * on the last Sunday of October) fires at its first occurrence only, while a
 * job with a `*`-based minute or hour field keeps firing by the wall clock
 * through both runs of the repeated hour (see `nextAfter`).
 */

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
