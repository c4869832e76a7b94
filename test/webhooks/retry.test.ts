import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { testConfig as layerWith } from "../support/TestConfig.js"
import { runWithRetries } from "../../src/Webhooks/Retry.js"
import * as Sender from "../../src/Webhooks/Sender.js"
import { UrlGuard } from "../../src/Webhooks/UrlGuard.js"
import { receiver } from "./support.js"

type Reply = Sender.AttemptResult

const ok: Reply = { _tag: "Delivered", statusCode: 200, responseBody: "ok" }
const status = (code: number): Reply => ({
  _tag: Sender.classify(code) as "Retryable" | "Permanent",
  statusCode: code,
  responseBody: "",
  error: `HTTP ${code}`
})

/** An injected sender answering `replies` in order and noting the (test) clock time of each attempt. */
const scripted = (replies: ReadonlyArray<Reply>) => {
  const at: Array<number> = []
  const attempt = Effect.gen(function*() {
    at.push(yield* TestClock.currentTimeMillis)
    return replies[Math.min(at.length - 1, replies.length - 1)]!
  })
  return { at, attempt }
}

const retries = () => {
  const saved: Array<{ attempts: number; delayMs: number; statusCode: number | null }> = []
  const onRetry = (attempts: number, failure: { statusCode: number | null }, delay: Duration.Duration) =>
    Effect.sync(() => void saved.push({ attempts, delayMs: Duration.toMillis(delay), statusCode: failure.statusCode }))
  return { saved, onRetry }
}

describe("retry policy (Schedule)", () => {
  it.effect("500, 500, 200: three attempts at 0 s, 1 s and 5 s; state saved before each backoff", () =>
    Effect.gen(function*() {
      const sender = scripted([status(500), status(500), ok])
      const r = retries()
      const fiber = yield* Effect.fork(runWithRetries({ attemptsMade: 0, attempt: sender.attempt, onRetry: r.onRetry }))
      yield* TestClock.adjust("999 millis")
      expect(sender.at).toEqual([0])
      yield* TestClock.adjust("1 millis")
      expect(sender.at).toEqual([0, 1000])
      yield* TestClock.adjust("3999 millis")
      expect(sender.at).toEqual([0, 1000])
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      expect(sender.at).toEqual([0, 1000, 5000])
      expect(result).toEqual({ result: ok, attempts: 3 })
      expect(r.saved).toEqual([
        { attempts: 1, delayMs: 1000, statusCode: 500 },
        { attempts: 2, delayMs: 4000, statusCode: 500 }
      ])
    }))

  it.effect("always 503: stops after the third attempt with the last failure (no 16 s wait)", () =>
    Effect.gen(function*() {
      const sender = scripted([status(503)])
      const r = retries()
      const fiber = yield* Effect.fork(runWithRetries({ attemptsMade: 0, attempt: sender.attempt, onRetry: r.onRetry }))
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(fiber)
      expect(sender.at).toEqual([0, 1000, 5000])
      expect(result.attempts).toBe(3)
      expect(result.result).toEqual(status(503))
      expect(r.saved).toHaveLength(2)
    }))

  it.effect("400 and 301 are permanent: one attempt, nothing saved", () =>
    Effect.gen(function*() {
      for (const code of [400, 401, 404, 301, 302]) {
        const sender = scripted([status(code), ok])
        const r = retries()
        const result = yield* runWithRetries({ attemptsMade: 0, attempt: sender.attempt, onRetry: r.onRetry })
        expect(result).toEqual({ result: status(code), attempts: 1 })
        expect(r.saved).toEqual([])
      }
    }))

  it.effect("408, 429 and network errors are retried", () =>
    Effect.gen(function*() {
      const network: Reply = { _tag: "Retryable", statusCode: null, responseBody: null, error: "network error: ECONNRESET" }
      for (const first of [status(408), status(429), network]) {
        const sender = scripted([first, ok])
        const fiber = yield* Effect.fork(runWithRetries({ attemptsMade: 0, attempt: sender.attempt, onRetry: () => Effect.void }))
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(fiber)).toEqual({ result: ok, attempts: 2 })
      }
    }))

  it.effect("resumes after a restart with the saved count: attempt 2 now, attempt 3 four seconds later, then stop", () =>
    Effect.gen(function*() {
      const sender = scripted([status(500)])
      const r = retries()
      const start = yield* TestClock.currentTimeMillis
      const fiber = yield* Effect.fork(runWithRetries({ attemptsMade: 1, attempt: sender.attempt, onRetry: r.onRetry }))
      yield* TestClock.adjust("4 seconds")
      const result = yield* Fiber.join(fiber)
      expect(sender.at.map((t) => t - start)).toEqual([0, 4000])
      expect(result.attempts).toBe(3)
      expect(r.saved).toEqual([{ attempts: 2, delayMs: 4000, statusCode: 500 }])
    }))

  it("classifies status codes", () => {
    expect([200, 201, 204, 299].map(Sender.classify)).toEqual(["Delivered", "Delivered", "Delivered", "Delivered"])
    expect([500, 502, 503, 599, 408, 429].every((c) => Sender.classify(c) === "Retryable")).toBe(true)
    expect([300, 301, 302, 304, 307, 308, 400, 401, 403, 404, 410, 422].every((c) => Sender.classify(c) === "Permanent"))
      .toBe(true)
  })

  it("stores at most 1024 characters, never a NUL or a split surrogate pair", () => {
    expect(Sender.truncateBody("x".repeat(5000))).toHaveLength(1024)
    expect(Sender.truncateBody("a\u0000b")).toBe("a\uFFFDb")
    const cut = Sender.truncateBody("x".repeat(1023) + "😀")
    expect(cut).toBe("x".repeat(1023))
  })
})

describe("sender", () => {
  it.scoped("an attempt times out after 10 s by default (test clock)", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/hang", ["hang"])
      const send = yield* Sender.make({ attemptTimeout: Duration.seconds(10) })
      const fiber = yield* Effect.fork(send({ url: rx.url("/hang"), body: "{}", signature: null }))
      // Wait (in real time) until the request reached the receiver, then move the test clock.
      for (let i = 0; i < 200 && rx.received("/hang").length === 0; i++) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
      expect(rx.received("/hang")).toHaveLength(1)
      yield* TestClock.adjust("9999 millis")
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      expect(result).toEqual({ _tag: "Retryable", statusCode: null, responseBody: null, error: "timed out after 10s" })
    }).pipe(Effect.provide(UrlGuard.Default), Effect.provide(layerWith({ webhookAllowPrivateNetworks: true }))))

  it.scoped("refuses a non-public literal address before any connection when private networks are not allowed", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const send = yield* Sender.make({ attemptTimeout: Duration.seconds(10) })
      for (const url of [rx.url("/x"), `http://[::1]:${rx.port}/x`, "http://10.0.0.1/x", "http://169.254.169.254/x", "http://100.64.0.1/x", "http://[fc00::1]/x"]) {
        const result = yield* send({ url, body: "{}", signature: null })
        expect(result).toMatchObject({ _tag: "Permanent", error: "webhook URL resolves to a non-public address" })
      }
      expect(rx.received()).toHaveLength(0)
    }).pipe(Effect.provide(UrlGuard.Default), Effect.provide(layerWith({ webhookAllowPrivateNetworks: false }))))
})
