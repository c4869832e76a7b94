import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { Triggers } from "./Triggers.js"
import { answerTriggerErrors as answer } from "./TriggerWireErrors.js"

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
