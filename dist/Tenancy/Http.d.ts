import * as Layer from "effect/Layer";
import { Environments } from "./Environments.js";
import { Members } from "./Members.js";
import { Policy } from "./Policy.js";
import { Workspaces } from "./Workspaces.js";
export declare const WorkspacesLive: Layer.Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "workspaces">, never, import("../Auth/Security.js").UserAuthentication | Workspaces>;
export declare const EnvironmentsLive: Layer.Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "environments">, never, import("../Auth/Security.js").Authentication | Policy | Environments | Members>;
export declare const TenancyLive: Layer.Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "workspaces"> | import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "environments">, never, import("../Auth/Security.js").Authentication | import("../Auth/Security.js").UserAuthentication | Policy | Workspaces | Environments | Members>;
//# sourceMappingURL=Http.d.ts.map