import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import { ConcurrencyPools } from "./ConcurrencyPools.js"
import type { PoolInUse, PoolNameTaken, PoolNotFound } from "./PoolErrors.js"

/** The pools' failures, and the access policy's, as the contract answers them. */
export const answerPoolErrors = answering({
  ...accessCases,
  PoolNotFound: (_: PoolNotFound) => NotFound.of("concurrency pool"),
  PoolNameTaken: (error: PoolNameTaken) => new Conflict({ error: error.message }),
  PoolInUse: (error: PoolInUse) => new Conflict({ error: error.message })
})

export const ConcurrencyPoolsLive = HttpApiBuilder.group(Api, "concurrencyPools", (handlers) =>
  Effect.gen(function*() {
    const pools = yield* ConcurrencyPools
    const answer = answerPoolErrors
    return handlers
      .handle("list", ({ path, urlParams }) => answer(pools.list(path.envId, urlParams)))
      .handle("create", ({ path, payload }) => answer(pools.create(path.envId, payload)))
      .handle("get", ({ path }) => answer(pools.get(path.envId, path.poolId)))
      .handle("update", ({ path, payload }) => answer(pools.update(path.envId, path.poolId, payload)))
      .handle("delete", ({ path }) => answer(pools.remove(path.envId, path.poolId)))
  }))
