import * as Schema from "effect/Schema"

/** No such pool in the environment. */
export class PoolNotFound extends Schema.TaggedError<PoolNotFound>()("PoolNotFound", { poolId: Schema.String }) {
  override get message(): string {
    return "concurrency pool not found"
  }
}

/** Another pool of the environment has that name. */
export class PoolNameTaken extends Schema.TaggedError<PoolNameTaken>()("PoolNameTaken", { name: Schema.String }) {
  override get message(): string {
    return `name: a concurrency pool named "${this.name}" exists in this environment`
  }
}

/** A live trigger joins the pool: it cannot be deleted. */
export class PoolInUse extends Schema.TaggedError<PoolInUse>()("PoolInUse", { poolId: Schema.String, triggers: Schema.Number }) {
  override get message(): string {
    return `concurrency pool is used by ${this.triggers} trigger(s): remove it from their concurrency first`
  }
}
