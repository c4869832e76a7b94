import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../Crypto/Ids.js"
import { rowsAreValid } from "../Db/Rows.js"
import { User } from "../Contract/User.js"

/** A `users` row without its password hash, decoded into the API's `User`. */
const UserRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  created_at: Schema.DateFromSelf
}).pipe(
  Schema.transform(Schema.instanceOf(User), {
    strict: true,
    decode: (row) => new User({ id: row.id, email: row.email, createdAt: row.created_at }, rowsAreValid),
    encode: (user) => ({ id: user.id, email: user.email, created_at: user.createdAt })
  })
)

/** A `users` row with its password hash, for signing in. */
const CredentialsRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  password_hash: Schema.String,
  created_at: Schema.DateFromSelf
})

/** Users repository. Emails are stored trimmed and lower-cased. */
export class Users extends Effect.Service<Users>()("Auth/Users", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const inserted = SqlSchema.findOne({
      Request: Schema.Struct({ email: Schema.String, passwordHash: Schema.String }),
      Result: UserRow,
      execute: ({ email, passwordHash }) =>
        sql`INSERT INTO users (id, email, password_hash) VALUES (${uuidv7()}, ${email}, ${passwordHash})
            ON CONFLICT (email) DO NOTHING
            RETURNING id, email, created_at`
    })

    /** Inserts the user; `None` when the email is taken. */
    const insert = (email: string, passwordHash: string): Effect.Effect<Option.Option<User>> =>
      inserted({ email, passwordHash }).pipe(Effect.orDie, Effect.withSpan("Users.insert"))

    const byEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: CredentialsRow,
      execute: (email) => sql`SELECT id, email, password_hash, created_at FROM users WHERE email = ${email}`
    })

    const findByEmail = (email: string): Effect.Effect<Option.Option<typeof CredentialsRow.Type>> => Effect.orDie(byEmail(email))

    const byId = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (id) => sql`SELECT id, email, created_at FROM users WHERE id = ${id}`
    })

    const findById = (id: string): Effect.Effect<Option.Option<User>> => Effect.orDie(byId(id))

    return { insert, findByEmail, findById } as const
  })
}) {}
