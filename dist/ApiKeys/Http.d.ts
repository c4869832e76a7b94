import { Policy } from "../Tenancy/Policy.js";
import { ApiKeys } from "./ApiKeys.js";
export declare const ApiKeysLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "apiKeys">, never, import("../Auth/Security.js").Authentication | Policy | ApiKeys>;
//# sourceMappingURL=Http.d.ts.map