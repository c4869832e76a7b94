import { Workers } from "./Workers.js";
export declare const WorkersLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "workers">, never, import("../Auth/Security.js").Authentication | Workers>;
//# sourceMappingURL=Http.d.ts.map