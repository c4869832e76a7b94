import { HttpApiBuilder } from "@effect/platform"
import * as Effect from "effect/Effect"
import { Api } from "../Api.js"
import { Dashboard } from "./Dashboard.js"

export const DashboardLive = HttpApiBuilder.group(Api, "dashboard", (handlers) =>
  Effect.map(Dashboard, (dashboard) => handlers.handle("overview", ({ path }) => dashboard.overview(path.envId))))
