import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * Whether this service offers the worker channel. An embedding program (or
 * a test) switches it off by providing `false`; the service also reads
 * `WORKER_CHANNEL_ENABLED`. Off, the route answers 404 and `GET /workers/me`
 * does not name it, so workers use the REST protocol.
 */
export class ChannelEnabled extends Context.Reference<ChannelEnabled>()("WorkerChannel/Enabled", {
  defaultValue: () => true
}) {}

export const fromEnv = Config.boolean("WORKER_CHANNEL_ENABLED").pipe(
  Config.withDefault(true),
  Config.withDescription("offer the streaming worker channel (WebSocket) beside the REST worker protocol")
)

export const enabled: Effect.Effect<boolean> = Effect.zipWith(ChannelEnabled, Effect.orDie(fromEnv), (given, env) => given && env)
