import { HttpApiBuilder } from "@effect/platform"
import * as Effect from "effect/Effect"
import { Api } from "../Api.js"
import { Triggers } from "./Triggers.js"
import { answerTriggerErrors as answer } from "./WireErrors.js"

export const TriggersLive = HttpApiBuilder.group(Api, "triggers", (handlers) =>
  Effect.gen(function*() {
    const triggers = yield* Triggers
    return handlers
      .handle("list", ({ path, urlParams }) => answer(triggers.list(path.envId, urlParams)))
      .handle("create", ({ path, payload }) => answer(triggers.create(path.envId, payload)))
      .handle("get", ({ path }) => answer(triggers.get(path.id)))
      .handle("update", ({ path, payload }) => answer(triggers.update(path.id, payload)))
      .handle("delete", ({ path }) => answer(triggers.remove(path.id)))
      .handle("rotateMcpToken", ({ path }) => answer(triggers.rotateMcpToken(path.id)))
  }))
