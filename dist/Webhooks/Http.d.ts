import { Policy } from "../Tenancy/Policy.js";
import { DeliveriesRepo } from "./DeliveriesRepo.js";
export declare const WebhooksLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "webhooks">, never, import("../Auth/Security.js").Authentication | DeliveriesRepo | Policy>;
//# sourceMappingURL=Http.d.ts.map