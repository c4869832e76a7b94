import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { uuidv7 } from "../Crypto/Ids.js"
import { User } from "./User.js"
import { rowsAreValid } from "../Domain/Rows.js"


interface UserRow {
  readonly id: string
  readonly email: string
  readonly password_hash: string
  readonly created_at: Date
}

export const toUser = (row: Pick<UserRow, "id" | "email" | "created_at">): User =>
  new User({ id: row.id, email: row.email, createdAt: row.created_at }, rowsAreValid)

/** Users repository. Emails are stored trimmed and lower-cased. */
export class Users extends Effect.Service<Users>()("Auth/Users", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Inserts the user; `None` when the email is taken. */
    const insert = (email: string, passwordHash: string): Effect.Effect<Option.Option<User>> =>
      sql<UserRow>`
        INSERT INTO users (id, email, password_hash) VALUES (${uuidv7()}, ${email}, ${passwordHash})
        ON CONFLICT (email) DO NOTHING
        RETURNING id, email, created_at`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUser)),
        Effect.orDie,
        Effect.withSpan("Users.insert")
      )

    const findByEmail = (email: string): Effect.Effect<Option.Option<UserRow>> =>
      sql<UserRow>`SELECT id, email, password_hash, created_at FROM users WHERE email = ${email}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const findById = (id: string): Effect.Effect<Option.Option<User>> =>
      sql<UserRow>`SELECT id, email, created_at FROM users WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUser)),
        Effect.orDie
      )

    return { insert, findByEmail, findById } as const
  })
}) {}
