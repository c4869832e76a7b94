import { Policy } from "../Tenancy/Policy.js";
import { RunHistory } from "./RunHistory.js";
import { RunRequests } from "./RunRequests.js";
import { RunsRepo } from "./RunsRepo.js";
export declare const RunsLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "runs">, never, import("../Auth/Security.js").Authentication | RunHistory | Policy | RunsRepo | RunRequests>;
//# sourceMappingURL=Http.d.ts.map