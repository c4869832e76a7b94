import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/**
 * Postgres LISTEN/NOTIFY, so that one instance's assignment wakes a worker
 * long-polling on another instance. Both database backends provide it.
 */
export class Notifications extends Context.Tag("Db/Notifications")<Notifications, {
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}>() {}
