import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { ServiceUnavailable } from "../Contract/Domain/ApiErrors.js"
import { Api } from "../Contract/Api.js"
import { Readiness } from "./Readiness.js"
import * as SharedCheck from "./SharedCheck.js"

/** The readiness answer: undefined when ready, else the 503 to send. */
const notReady = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const readiness = yield* Readiness
  const why = yield* readiness.check(sql)
  return why === undefined ? undefined : new ServiceUnavailable({ error: `not ready: ${why}` })
})

export const HealthLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const context = yield* Effect.context<SqlClient.SqlClient | Readiness>()
    // Checks arriving together share one statement (and its timeout fiber, about a
    // tenth of a millisecond of CPU per check): a burst of health checks is one query.
    const databaseAnswers = SharedCheck.make(
      sql`SELECT 1`.pipe(Effect.timeout("2 seconds"), Effect.as(true), Effect.orElseSucceed(() => false))
    )
    return handlers
      .handle("health", () =>
        Effect.flatMap(databaseAnswers, (answers) =>
          answers ? Effect.succeed({ status: "ok" as const }) : Effect.fail(ServiceUnavailable.default)))
      .handle("live", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        Effect.flatMap(Effect.provide(notReady, context), (error) =>
          error === undefined ? Effect.succeed({ status: "ready" as const }) : Effect.fail(error)))
  }))

/**
 * The probes at the root as well (`/health/live`, `/health/ready`), where
 * orchestrators and load balancers look by default; same answers as under `/api/v1`.
 */
export const rootProbes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<SqlClient.SqlClient | Readiness>()
    yield* router.get("/health/live", HttpServerResponse.json({ status: "ok" }))
    yield* router.get(
      "/health/ready",
      Effect.flatMap(Effect.provide(notReady, context), (error) =>
        error === undefined
          ? HttpServerResponse.json({ status: "ready" })
          : HttpServerResponse.json({ error: error.error }, { status: 503 }))
    )
  })
)
