import { describe, expect, it as plain, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { wordIssues } from "../../src/Contract/Domain/IssueWording.js"
import { setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

// The 400 body keeps its shape ({error, details: {fieldErrors, formErrors}});
// what changes is that each message is a sentence naming its field, never the
// schema's internals ("Expected a string at least 8 character(s) long, actual …").
const internals = /Expected |actual |character\(s\)|readonly |\| filter/

withLayer(layer(), { excludeTestServices: true })("validation messages over HTTP", (it) => {
  describe("each 400 message names its field in words", () => {
    it.effect("register: a short password and a bad email, and the password is not echoed", () =>
      Effect.gen(function*() {
        const res = yield* call("POST", "/api/v1/auth/register", { body: { email: "nope", password: "short" } })
        expect(res.status).toBe(400)
        expect(res.body).toEqual({
          error: "validation failed",
          details: {
            fieldErrors: { email: ["email must be an email address"], password: ["password must be at least 8 characters"] },
            formErrors: []
          }
        })
        const missing = yield* call("POST", "/api/v1/auth/register", { body: { password: 12345678 } })
        expect(missing.body.details.fieldErrors).toEqual({ email: ["email is required"], password: ["password must be a string"] })
      }))

    it.effect("a trigger: a nullable field's union members are one sentence; a nested reason stands alone", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const path = `/api/v1/environments/${env.environmentId}/triggers`
        const shape = yield* call("POST", path, {
          cookie: env.user.cookie,
          body: { name: 5, schedule: "daily", description: 4, timeoutSeconds: "x", maxRetries: 1.5 }
        })
        expect(shape.status).toBe(400)
        expect(shape.body.details.fieldErrors).toEqual({
          name: ["name must be a string"],
          schedule: ["schedule must be an object or null"],
          description: ["description must be a string or null"],
          timeoutSeconds: ["timeoutSeconds must be a number"],
          maxRetries: ["maxRetries must be an integer from 0 to 10"]
        })
        const cron = yield* call("POST", path, { cookie: env.user.cookie, body: { name: "x", schedule: { cron: "bad" } } })
        expect(cron.status).toBe(400)
        expect(cron.body.details.fieldErrors.schedule).toHaveLength(1)
        expect(cron.body.details.fieldErrors.schedule[0]).toMatch(/^cron must be a cron expression/)
        const whole = yield* call("POST", path, { cookie: env.user.cookie, body: [1] })
        expect(whole.body.details).toEqual({ fieldErrors: {}, formErrors: ["the request body must be an object"] })
        for (const body of [shape.body, cron.body, whole.body]) expect(JSON.stringify(body)).not.toMatch(internals)
      }))

    it.effect("query parameters too", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const audit = `/api/v1/environments/${env.environmentId}/audit-log`
        const target = yield* call("GET", `${audit}?targetId=nope`, { cookie: env.user.cookie })
        expect(target.status).toBe(400)
        expect(target.body.details.fieldErrors).toEqual({ targetId: ["targetId must be a UUID"] })
        const limit = yield* call("GET", `${audit}?limit=0`, { cookie: env.user.cookie })
        expect(limit.body.details.fieldErrors).toEqual({ limit: ["limit must be an integer from 1 to 200"] })
      }))
  })
})

describe("wordIssues", () => {
  plain("puts the path in front of a predicate, keeps a sentence, drops undefined, joins alternatives", () => {
    expect(wordIssues([
      { path: ["runs", 1, "status"], message: "must be succeeded or failed" },
      { path: ["cursor"], message: "invalid cursor" },
      { path: ["a"], message: "Expected undefined, actual 1" },
      { path: ["a"], message: "Expected string, actual 1" },
      { path: ["a"], message: "Expected null, actual 1" },
      { path: ["role"], message: "Expected \"viewer\" | \"admin\", actual \"x\"" },
      { path: ["gone"], message: "is unexpected" }
    ])).toEqual({
      fieldErrors: {
        runs: ["runs[1].status must be succeeded or failed"],
        cursor: ["invalid cursor"],
        a: ["a must be a string or null"],
        role: ["role must be one of \"viewer\", \"admin\""],
        gone: ["gone is not allowed"]
      },
      formErrors: []
    })
  })
})
