import { WorkersRepo } from "../Workers/WorkersRepo.js";
import { WorkerProtocol } from "./WorkerProtocol.js";
export declare const WorkerProtocolLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "workerProtocol">, never, import("../Auth/Security.js").WorkerAuthentication | WorkerProtocol | WorkersRepo>;
//# sourceMappingURL=WorkerHttp.d.ts.map