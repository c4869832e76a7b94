import * as Schema from "effect/Schema"

/** A user as the API answers it (part of the contract: no server imports here). */
export class User extends Schema.Class<User>("User")({
  id: Schema.UUID,
  email: Schema.String,
  createdAt: Schema.Date
}) {}
