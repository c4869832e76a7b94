import { describe, expect, it } from "@effect/vitest"
import * as Cron from "effect/Cron"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Schedule from "../../src/Contract/Schedule.js"
import * as S from "../../src/Triggers/Ticks.js"

const ticks = (cron: string, timezone: string, fromIso: string, n: number) => {
  const c = S.cronOf({ cron, timezone })
  const out: Array<string> = []
  let at = Date.parse(fromIso)
  for (let i = 0; i < n; i++) {
    at = S.nextAfter(c, at)!
    out.push(new Date(at).toISOString())
  }
  return out
}

describe("Schedule (pure tick rules)", () => {
  it("a 02:30 daily job runs once on the spring-forward and once on the fall-back day", () => {
    // Europe/Berlin: 02:00 → 03:00 on 29 March 2026, 03:00 → 02:00 on 25 October 2026.
    expect(ticks("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 3)).toEqual([
      "2026-03-29T01:30:00.000Z", // 03:30 CEST: the skipped 02:30 runs an hour later in wall time, once
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z"
    ])
    expect(ticks("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 3)).toEqual([
      "2026-10-25T00:30:00.000Z", // the first 02:30 (CEST); the repeated one (CET) does not fire
      "2026-10-26T01:30:00.000Z",
      "2026-10-27T01:30:00.000Z"
    ])
    // America/New_York: 02:00 → 03:00 on 8 March 2026, 02:00 → 01:00 on 1 November 2026.
    expect(ticks("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2)).toEqual([
      "2026-03-08T07:30:00.000Z", // 03:30 EDT
      "2026-03-09T06:30:00.000Z"
    ])
    expect(ticks("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T05:30:00.000Z", // the first 01:30 (EDT) only
      "2026-11-02T06:30:00.000Z"
    ])
  })

  it("fall-back: jobs with a *-based minute or hour keep firing by the wall clock through the repeated hour", () => {
    // Europe/Berlin, 25 October 2026: 03:00 CEST (01:00 UTC) → 02:00 CET; 02:00–03:00 runs twice.
    expect(ticks("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z", 4)).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T01:00:00.000Z", // 02:00 CET, the repeated hour
      "2026-10-25T02:00:00.000Z",
      "2026-10-25T03:00:00.000Z"
    ])
    expect(ticks("*/20 * * * *", "Europe/Berlin", "2026-10-25T00:30:00Z", 5)).toEqual([
      "2026-10-25T00:40:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T01:20:00.000Z",
      "2026-10-25T01:40:00.000Z",
      "2026-10-25T02:00:00.000Z"
    ])
    // An every-second job does not stop for an hour (Effect's Cron.next alone jumps 00:59:59 → 02:00:00 UTC).
    expect(ticks("* * * * * *", "Europe/Berlin", "2026-10-25T00:59:58Z", 3)).toEqual([
      "2026-10-25T00:59:59.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T01:00:01.000Z"
    ])
    expect(ticks("0 * * * *", "America/New_York", "2026-11-01T04:30:00Z", 3)).toEqual([
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T07:00:00.000Z"
    ])
  })

  it("from inside the repeated hour the next tick is in the future (Effect's Cron.next answers the past there)", () => {
    const inRepeat = Date.parse("2026-10-25T01:10:00Z") // 02:10 CET, after 02:10 CEST
    const fixed = S.cronOf({ cron: "30 2 * * *", timezone: "Europe/Berlin" })
    expect(Cron.next(fixed.cron, new Date(inRepeat)).getTime()).toBeLessThan(inRepeat)
    expect(new Date(S.nextAfter(fixed, inRepeat)!).toISOString()).toBe("2026-10-26T01:30:00.000Z")
    expect(new Date(S.nextAfter(S.cronOf({ cron: "*/20 * * * *", timezone: "Europe/Berlin" }), inRepeat)!).toISOString())
      .toBe("2026-10-25T01:20:00.000Z")
    // Strictly after and non-decreasing across both transitions, every 20 s over 4 hours.
    for (const [expr, fromIso] of [["*/20 * * * *", "2026-10-24T23:00:00Z"], ["30 2 * * *", "2026-10-24T23:00:00Z"], ["*/20 * * * *", "2026-03-28T23:00:00Z"]]) {
      const cron = S.cronOf({ cron: expr!, timezone: "Europe/Berlin" })
      let previous = 0
      for (let at = Date.parse(fromIso!); at < Date.parse(fromIso!) + 4 * 3_600_000; at += 20_000) {
        const next = S.nextAfter(cron, at)!
        expect(next, `${expr} after ${new Date(at).toISOString()}`).toBeGreaterThan(at)
        expect(next).toBeGreaterThanOrEqual(previous)
        previous = next
      }
    }
  })

  it("latestAtOrBefore agrees with walking every tick", () => {
    // Spans kept to a few hundred ticks each: the walk is the slow way.
    const day = 86_400_000
    const start = "2026-03-20T10:11:12Z"
    const cases: ReadonlyArray<[string, string, ReadonlyArray<number>, string]> = [
      ["*/7 * * * *", "UTC", [0, 999, 61_000, 3_600_000, day], start],
      ["30 2 * * *", "Europe/Berlin", [0, 3_600_000, 5 * day, 200 * day], start],
      ["15 */3 * * 1-5", "America/New_York", [0, 3 * 3_600_000, 20 * day], start],
      ["*/5 * * * * *", "UTC", [0, 999, 61_000, 1_800_000], start],
      // Across the fall-back, through the repeated hour.
      ["*/10 * * * *", "Europe/Berlin", [0, 50 * 60_000, 80 * 60_000, 3 * 3_600_000], "2026-10-25T00:05:00Z"]
    ]
    for (const [expr, zone, spans, fromIso] of cases) {
      const cron = S.cronOf({ cron: expr, timezone: zone })
      const from = S.nextAfter(cron, Date.parse(fromIso))!
      for (const span of spans) {
        const now = from + span
        let walk = from
        for (let next = S.nextAfter(cron, walk)!; next <= now; next = S.nextAfter(cron, walk)!) walk = next
        expect(S.latestAtOrBefore(cron, from, now), `${expr} ${zone} +${span}`).toBe(walk)
      }
    }
  })

  it("decide: late within a minute fires the tick itself; later, catchUp latest fires only the latest, none skips", () => {
    const cron = S.cronOf({ cron: "0 * * * *", timezone: "UTC" })
    const due = Date.parse("2026-05-01T10:00:00Z")
    expect(S.decide(cron, "none", due, due + 59_000)).toEqual({ _tag: "Fire", scheduledFor: due, next: due + 3_600_000 })
    const later = due + 3 * 3_600_000 + 1_800_000
    expect(S.decide(cron, "latest", due, later)).toEqual({
      _tag: "Fire",
      scheduledFor: due + 3 * 3_600_000,
      next: due + 4 * 3_600_000
    })
    expect(S.decide(cron, "none", due, later)).toEqual({ _tag: "Skip", next: due + 4 * 3_600_000 })
  })

  it("input: 5 or 6 fields, zone canonical, defaults filled", () => {
    const decode = Schema.decodeUnknownEither(Schedule.ScheduleInput)
    expect(Either.isRight(decode({ cron: "* * * * * *" }))).toBe(true)
    expect(decode({ cron: "0 9 * * 1-5", timezone: "america/new_york" })).toEqual(
      Either.right({ cron: "0 9 * * 1-5", timezone: "America/New_York" })
    )
    expect(Schedule.resolve({ cron: " 0  9 * * 1-5 " })).toEqual({ cron: "0 9 * * 1-5", timezone: "UTC", catchUp: "latest" })
    expect(Either.isLeft(decode({ cron: "* * * * * * *" }))).toBe(true)
    expect(Either.isLeft(decode({ cron: "* * * * *", timezone: "UTC+2" }))).toBe(true)
    // Effect's Cron is what the rules rest on: seconds default to 0 in the 5-field form.
    expect(Cron.next(S.cronOf({ cron: "* * * * *", timezone: "UTC" }).cron, new Date("2026-01-01T00:00:30Z")).toISOString())
      .toBe("2026-01-01T00:01:00.000Z")
  })
})
