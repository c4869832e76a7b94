import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "../Auth/Security.js"
import { Forbidden, NotFound } from "../Domain/Errors.js"

/**
 * Summary figures of one environment. Days and months are UTC;
 * `monthTokenSpendUsd` is exact decimal text (never a float).
 */
export class Overview extends Schema.Class<Overview>("DashboardOverview")({
  onlineWorkers: Schema.Int,
  /** Runs created since 00:00 UTC. */
  todaysRuns: Schema.Int,
  /** Succeeded ÷ terminal runs created today × 100, one decimal; null when none ended yet. */
  successRatePct: Schema.NullOr(Schema.Number),
  /** Sum of `costUsd` of runs that ended this UTC month; "0" when none. */
  monthTokenSpendUsd: Schema.String
}) {}

export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.get("overview", "/environments/:envId/dashboard/overview")
      .annotate(OpenApi.Summary, "Dashboard figures")
      .annotate(OpenApi.Description, "viewer or higher: online workers, today's runs (UTC), today's success rate in percent, this month's cost.")
      // A malformed id names nothing: 404 like a missing environment.
      .setPath(Schema.Struct({ envId: Schema.String }))
      .addSuccess(Overview)
      .addError(NotFound)
      .addError(Forbidden)
  )
  .middleware(Authentication)
{}
