import { HttpApiBuilder } from "@effect/platform";
import * as Effect from "effect/Effect";
import { Api } from "../Api.js";
import { Workers } from "./Workers.js";
export const WorkersLive = HttpApiBuilder.group(Api, "workers", (handlers) => Effect.gen(function* () {
    const workers = yield* Workers;
    return handlers
        .handle("register", ({ payload }) => workers.register(payload.registrationToken, payload.label))
        .handle("listEnvironment", ({ path, urlParams }) => workers.listEnvironment(path.envId, urlParams))
        .handle("listWorkspace", ({ path, urlParams }) => workers.listWorkspace(path.wsId, urlParams))
        .handle("updateLabel", ({ path, payload }) => workers.updateLabel(path.wsId, path.workerId, payload.label));
}));
//# sourceMappingURL=Http.js.map