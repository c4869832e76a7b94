import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Limit, Page, Payload, Timestamp } from "./Domain/Schemas.js"

/** A limit of flow control (a pool's, a trigger's `limit` and `perKey`): 1 to 10,000. */
export const ConcurrencyLimit = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer from 1 to 10000" }),
  Schema.between(1, 10_000, { message: () => "must be an integer from 1 to 10000" })
).annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: 10_000 } })

/** A pool's name: what a trigger's `concurrency.pool` names and wait reasons show. */
export const PoolName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
    message: () => "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
).annotations({ jsonSchema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" } })

/** A shared concurrency pool: at most `limit` runs of all the triggers that join it hold a place at once. */
export const ConcurrencyPool = Schema.Struct({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  name: Schema.String,
  limit: Schema.Int,
  /** Runs of its triggers holding a place now (assigned, claimed or running). */
  inUse: Schema.Int,
  /** Live triggers that join it. */
  triggers: Schema.Int,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "ConcurrencyPool" })
export type ConcurrencyPool = typeof ConcurrencyPool.Type

export const CreateConcurrencyPool = Payload({ name: PoolName, limit: ConcurrencyLimit })
export const PatchConcurrencyPool = Payload({ name: Schema.optional(PoolName), limit: Schema.optional(ConcurrencyLimit) })

const EnvironmentPath = Schema.Struct({ envId: pathId("environment") })
const PoolPath = Schema.Struct({ envId: pathId("environment"), poolId: pathId("concurrency pool") })

export class ConcurrencyPoolsApi extends HttpApiGroup.make("concurrencyPools")
  .add(
    HttpApiEndpoint.get("list", "/environments/:envId/concurrency-pools")
      .annotate(OpenApi.Summary, "List concurrency pools")
      .annotate(OpenApi.Description, "viewer or higher. The environment's pools, newest first, each with its `limit` and the places in use now.")
      .setPath(EnvironmentPath)
      .setUrlParams(Schema.Struct({ cursor: Schema.optional(Schema.String), limit: Schema.optional(Limit) }))
      .addSuccess(Page(ConcurrencyPool))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("create", "/environments/:envId/concurrency-pools")
      .annotate(OpenApi.Summary, "Create a concurrency pool")
      .annotate(OpenApi.Description, "admin or higher. `{name, limit}`: triggers join it with `concurrency.pool` = its name. A name taken in the environment is 409.")
      .setPath(EnvironmentPath)
      .setPayload(CreateConcurrencyPool)
      .addSuccess(ConcurrencyPool, { status: 201 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.get("get", "/environments/:envId/concurrency-pools/:poolId")
      .annotate(OpenApi.Summary, "Read a concurrency pool")
      .annotate(OpenApi.Description, "viewer or higher.")
      .setPath(PoolPath)
      .addSuccess(ConcurrencyPool)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.patch("update", "/environments/:envId/concurrency-pools/:poolId")
      .annotate(OpenApi.Summary, "Update a concurrency pool")
      .annotate(OpenApi.Description, "admin or higher; `name` and/or `limit`. A new limit applies to runs not yet placed; a lower one lets runs holding a place keep it.")
      .setPath(PoolPath)
      .setPayload(PatchConcurrencyPool)
      .addSuccess(ConcurrencyPool)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.del("delete", "/environments/:envId/concurrency-pools/:poolId")
      .annotate(OpenApi.Summary, "Delete a concurrency pool")
      .annotate(OpenApi.Description, "admin or higher. 409 while a trigger joins it (remove it from their `concurrency` first).")
      .setPath(PoolPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .middleware(Authentication)
{}
