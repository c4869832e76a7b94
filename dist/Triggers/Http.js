import { HttpApiBuilder } from "@effect/platform";
import * as Effect from "effect/Effect";
import { Api } from "../Api.js";
import { Triggers } from "./Triggers.js";
export const TriggersLive = HttpApiBuilder.group(Api, "triggers", (handlers) => Effect.gen(function* () {
    const triggers = yield* Triggers;
    return handlers
        .handle("list", ({ path, urlParams }) => triggers.list(path.envId, urlParams))
        .handle("create", ({ path, payload }) => triggers.create(path.envId, payload))
        .handle("get", ({ path }) => triggers.get(path.id))
        .handle("update", ({ path, payload }) => triggers.update(path.id, payload))
        .handle("delete", ({ path }) => triggers.remove(path.id))
        .handle("rotateMcpToken", ({ path }) => triggers.rotateMcpToken(path.id));
}));
//# sourceMappingURL=Http.js.map