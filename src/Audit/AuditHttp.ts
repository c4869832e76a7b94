import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { AuditLog } from "./AuditLog.js"

/** `action` and `actions` together: the set of names to match, or undefined for no filter. */
const actionSet = (action: string | undefined, actions: string | undefined): ReadonlyArray<string> | undefined => {
  const names = [action, ...(actions ?? "").split(",")].map((a) => a?.trim() ?? "").filter((a) => a.length > 0)
  return action === undefined && actions === undefined ? undefined : names
}

export const AuditLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    const policy = yield* Policy
    return handlers.handle("list", ({ path, urlParams }) =>
      Effect.gen(function*() {
        yield* answerAccess(policy.requireRole(path.envId, "admin"))
        const after = yield* decodeCursor(urlParams.cursor)
        const limit = urlParams.limit ?? defaultLimit
        const actions = actionSet(urlParams.action, urlParams.actions)
        const records = yield* audit.list(path.envId, { after, actions, targetId: urlParams.targetId, limit })
        return page(records, limit)
      }))
  }))
