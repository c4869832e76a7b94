import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized } from "../Domain/Errors.js"
import { Email, Payload } from "../Domain/Schemas.js"
import { UserAuthentication } from "./Security.js"
import { User } from "./Users.js"

export const Credentials = Payload({
  email: Email,
  password: Schema.String.pipe(Schema.minLength(8), Schema.maxLength(256))
})

export const LoginCredentials = Payload({
  email: Email,
  password: Schema.String.pipe(Schema.maxLength(256))
})

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("register", "/auth/register")
      .setPayload(Credentials)
      .addSuccess(User, { status: 201 })
      .addError(Conflict)
      .addError(Forbidden)
  )
  .add(
    HttpApiEndpoint.post("login", "/auth/login")
      .setPayload(LoginCredentials)
      .addSuccess(User)
      .addError(Unauthorized)
      .addError(Forbidden)
      .addError(TooManyRequests)
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout")
      .addSuccess(HttpApiSchema.NoContent)
      .middleware(UserAuthentication)
  )
  .add(
    HttpApiEndpoint.get("me", "/auth/me")
      .addSuccess(User)
      .middleware(UserAuthentication)
  )
  .add(
    HttpApiEndpoint.get("lookup", "/users/lookup")
      .setUrlParams(Schema.Struct({ email: Email }))
      .addSuccess(Schema.Struct({ id: Schema.UUID, email: Schema.String }))
      .addError(NotFound)
      .middleware(UserAuthentication)
  )
{}
