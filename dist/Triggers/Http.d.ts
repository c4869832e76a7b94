import { Triggers } from "./Triggers.js";
export declare const TriggersLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "triggers">, never, import("../Auth/Security.js").Authentication | Triggers>;
//# sourceMappingURL=Http.d.ts.map