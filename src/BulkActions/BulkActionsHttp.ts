import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Api } from "../Contract/Api.js"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import { BulkAction } from "../Contract/BulkActionsApi.js"
import { type BulkActionEnded, type BulkActionNotFound, BulkActions } from "./BulkActions.js"

const encode = Schema.encode(BulkAction)

/** The feature's refusals as the contract answers them. */
const answer = answering({
  ...accessCases,
  BulkActionNotFound: (e: BulkActionNotFound) => new NotFound({ error: e.message }),
  BulkActionEnded: (e: BulkActionEnded) => new Conflict({ error: e.message })
})

export const BulkActionsLive = HttpApiBuilder.group(Api, "bulkActions", (handlers) =>
  Effect.gen(function*() {
    const bulkActions = yield* BulkActions
    return handlers
      .handle("createBulkAction", ({ headers, path, payload }) =>
        Effect.gen(function*() {
          const { bulkAction, created } = yield* answer(bulkActions.create(path.envId, payload, headers["idempotency-key"]))
          // A repeated Idempotency-Key answers the first bulk action with 200.
          return HttpServerResponse.unsafeJson(yield* Effect.orDie(encode(bulkAction)), { status: created ? 201 : 200 })
        }))
      .handle("previewBulkAction", ({ path, payload }) => answer(bulkActions.preview(path.envId, payload)))
      .handle("listBulkActions", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const before = yield* decodeCursor(urlParams.cursor)
          const limit = urlParams.limit ?? defaultLimit
          return page(yield* answer(bulkActions.list(path.envId, before, limit)), limit)
        }))
      .handle("getBulkAction", ({ path }) => answer(bulkActions.get(path.id)))
      .handle("cancelBulkAction", ({ path }) => answer(bulkActions.cancel(path.id)))
  }))
