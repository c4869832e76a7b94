import { Dashboard } from "./Dashboard.js";
import { RunSeries } from "./RunSeries.js";
export declare const DashboardLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "dashboard">, never, import("../Auth/Security.js").Authentication | Dashboard | RunSeries>;
//# sourceMappingURL=Http.d.ts.map