import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as RcRef from "effect/RcRef"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import Pg from "pg"

/**
 * LISTEN on one dedicated connection, as `@effect/sql-pg`'s own `listen`
 * does, but with its LISTEN and UNLISTEN statements sent one at a time.
 * The services subscribe to their channels together as the app starts, and
 * `pg` warns (a DeprecationWarning on stderr) when a second statement is
 * queued on a connection that is still running one.
 *
 * The connection is opened with the first subscriber and closed with the
 * last. Like sql-pg's, it is not re-opened after the server drops it: the
 * services that listen also poll (sweep, presence), and re-subscribe when
 * their stream ends.
 */
export const make = (
  options: Pg.ClientConfig
): Effect.Effect<(channel: string) => Stream.Stream<string, SqlError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const one = yield* Effect.makeSemaphore(1)
    const connection = yield* RcRef.make({
      acquire: Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Pg.Client(options)
            // A dropped connection ends nothing by itself (see above); without a listener it would crash the process.
            client.on("error", () => {})
            await client.connect()
            return client
          },
          catch: (cause) => new SqlError({ cause, message: "Failed to acquire connection for listen" })
        }),
        (client) => Effect.promise(() => client.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
      )
    })
    const send = (client: Pg.Client, text: string) =>
      one.withPermits(1)(Effect.tryPromise({
        try: () => client.query(text),
        catch: (cause) => new SqlError({ cause, message: `Failed: ${text}` })
      }))

    return (channel: string) =>
      Stream.asyncPush<string, SqlError>((emit) =>
        Effect.gen(function*() {
          const client = yield* RcRef.get(connection)
          const onNotification = (message: Pg.Notification) => {
            if (message.channel === channel && message.payload !== undefined) emit.single(message.payload)
          }
          yield* Effect.addFinalizer(() => {
            client.off("notification", onNotification)
            return Effect.ignore(send(client, `UNLISTEN ${Pg.escapeIdentifier(channel)}`))
          })
          yield* send(client, `LISTEN ${Pg.escapeIdentifier(channel)}`)
          client.on("notification", onNotification)
        })
      )
  })
