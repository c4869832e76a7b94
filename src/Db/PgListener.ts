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
 * last. Unlike sql-pg's, a connection the server drops (a restart, a
 * terminated backend) ends every stream on it with a `SqlError` and is
 * forgotten: the services that listen re-subscribe when their stream fails,
 * on a fresh connection. (sql-pg's stream just stops delivering, and every
 * NOTIFY after the drop was lost.)
 */
export const make = (
  options: Pg.ClientConfig
): Effect.Effect<(channel: string) => Stream.Stream<string, SqlError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const one = yield* Effect.makeSemaphore(1)
    // Each connection's subscribers, failed together when it drops.
    const subscribers = new WeakMap<Pg.Client, Set<(error: SqlError) => void>>()
    // Clients already dropped, or ended by us (the last subscriber left): nothing more to do for them.
    const done = new WeakSet<Pg.Client>()
    const dropped = (client: Pg.Client, cause: unknown) => {
      if (done.has(client)) return
      done.add(client)
      const set = subscribers.get(client)
      subscribers.delete(client)
      // The RcRef hands this client out no more: the next subscriber opens a fresh one.
      Effect.runFork(RcRef.invalidate(connection))
      for (const fail of set ?? []) fail(new SqlError({ cause, message: "LISTEN connection lost" }))
    }
    const connection: RcRef.RcRef<Pg.Client, SqlError> = yield* RcRef.make({
      acquire: Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Pg.Client(options)
            subscribers.set(client, new Set())
            // Without an error listener a dropped connection would crash the process.
            client.on("error", (error) => dropped(client, error))
            client.on("end", () => dropped(client, new Error("connection ended")))
            await client.connect()
            return client
          },
          catch: (cause) => new SqlError({ cause, message: "Failed to acquire connection for listen" })
        }),
        (client) =>
          Effect.suspend(() => {
            done.add(client)
            return Effect.promise(() => client.end())
          }).pipe(Effect.interruptible, Effect.timeoutOption(1000))
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
          const onDrop = (error: SqlError) => emit.fail(error)
          subscribers.get(client)?.add(onDrop)
          yield* Effect.addFinalizer(() => {
            subscribers.get(client)?.delete(onDrop)
            client.off("notification", onNotification)
            return Effect.ignore(send(client, `UNLISTEN ${Pg.escapeIdentifier(channel)}`))
          })
          yield* send(client, `LISTEN ${Pg.escapeIdentifier(channel)}`)
          client.on("notification", onNotification)
        })
      )
  })
