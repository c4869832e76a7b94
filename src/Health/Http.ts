import { HttpApiBuilder } from "@effect/platform"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { ServiceUnavailable } from "../Domain/Errors.js"
import { Api } from "../Api.js"

export const HealthLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("health", () =>
      sql`SELECT 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as({ status: "ok" as const }),
        Effect.catchAll(() => Effect.fail(ServiceUnavailable.default))
      ))
  }))
