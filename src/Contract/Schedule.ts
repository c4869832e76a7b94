import * as Cron from "effect/Cron"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * A trigger's schedule: a cron expression read in an IANA time zone, with
 * Effect's own `Cron` module doing the parsing. The schemas create, PATCH
 * and reads use; the tick arithmetic is the server's (`Triggers/Ticks`).
 *
 * Expressions have 5 fields (minute hour day-of-month month day-of-week), as
 * cron has, or 6 with a leading seconds field (`Cron.parse` accepts both;
 * `* * * * * *` fires every second).
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
