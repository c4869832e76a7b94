import * as Schema from "effect/Schema"

/** Request payload structs report every invalid field, not only the first. */
export const Payload = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })

export const Uuid = Schema.UUID

/** Timestamps travel as ISO 8601 UTC strings; the database hands out `Date`s. */
export const Timestamp = Schema.Date

export const Role = Schema.Literal("viewer", "operator", "admin", "owner")
export type Role = typeof Role.Type

const order: Record<Role, number> = { viewer: 0, operator: 1, admin: 2, owner: 3 }
export const roleAtLeast = (role: Role, min: Role): boolean => order[role] >= order[min]

/** `limit` query parameter: 1..200, default 50. */
export const Limit = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(1, 200, { message: () => "limit must be an integer from 1 to 200" })
)

/** Every list endpoint answers this shape, newest first. */
export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({ items: Schema.Array(item), nextCursor: Schema.NullOr(Schema.String) })

export const Email = Schema.Trim.pipe(
  Schema.compose(Schema.Lowercase),
  Schema.compose(
    Schema.String.pipe(
      Schema.maxLength(254),
      Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" })
    )
  )
)
