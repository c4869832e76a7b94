import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized } from "./Domain/ApiErrors.js"
import { Email, Payload } from "./Domain/Schemas.js"
import { UserAuthentication } from "./Security.js"
import { User } from "./User.js"

export const Credentials = Payload({
  email: Email,
  password: Schema.String.pipe(
    Schema.minLength(8, { message: () => "must be at least 8 characters" }),
    Schema.maxLength(256, { message: () => "must be at most 256 characters" })
  )
})

export const LoginCredentials = Payload({
  email: Email,
  password: Schema.String.pipe(Schema.maxLength(256, { message: () => "must be at most 256 characters" }))
})

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("register", "/auth/register")
      .annotate(OpenApi.Summary, "Register a user")
      .annotate(OpenApi.Description, "Creates a user and signs it in: sets the `auth_token` session cookie (HttpOnly, SameSite=Lax). 409 when the email is taken. A present Origin header must be an allowed one.")
      .setPayload(Credentials)
      .addSuccess(User, { status: 201 })
      .addError(Conflict.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("login", "/auth/login")
      .annotate(OpenApi.Summary, "Sign in")
      .annotate(OpenApi.Description, "Checks email and password and sets the `auth_token` session cookie. Wrong email or password answer the same 401; after 5 failures for one email within 15 minutes, 429.")
      .setPayload(LoginCredentials)
      .addSuccess(User)
      .addError(Unauthorized.wire)
      .addError(Forbidden.wire)
      .addError(TooManyRequests.wire)
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout")
      .annotate(OpenApi.Summary, "Sign out")
      .annotate(OpenApi.Description, "Revokes the session server-side and clears the cookie.")
      .addSuccess(HttpApiSchema.NoContent)
      .middleware(UserAuthentication)
  )
  .add(
    HttpApiEndpoint.get("me", "/auth/me")
      .annotate(OpenApi.Summary, "The signed-in user")
      .annotate(OpenApi.Description, "The user of the session cookie.")
      .addSuccess(User)
      .middleware(UserAuthentication)
  )
  .add(
    HttpApiEndpoint.get("lookup", "/users/lookup")
      .annotate(OpenApi.Summary, "Find a user by email")
      .annotate(OpenApi.Description, "Answers `{id, email}` of the user with this email (to add them as a member), or 404.")
      .setUrlParams(Schema.Struct({ email: Email }))
      .addSuccess(Schema.Struct({ id: Schema.UUID, email: Schema.String }))
      .addError(NotFound.wire)
      .middleware(UserAuthentication)
  )
{}
