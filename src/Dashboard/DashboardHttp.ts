import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { Dashboard } from "./Dashboard.js"
import { RunSeries } from "./RunSeries.js"

export const DashboardLive = HttpApiBuilder.group(Api, "dashboard", (handlers) =>
  Effect.gen(function*() {
    const dashboard = yield* Dashboard
    const runSeries = yield* RunSeries
    return handlers
      .handle("overview", ({ path }) => answerAccess(dashboard.overview(path.envId)))
      .handle("runSeries", ({ path, urlParams }) => answerAccess(runSeries.series(path.envId, urlParams)))
  }))
