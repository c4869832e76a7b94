import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized } from "../Contract/Domain/ApiErrors.js"
import * as Passwords from "../Crypto/Passwords.js"
import { setCookie } from "../Http/Cookies.js"
import { Origins } from "../Http/Origins.js"
import { Api } from "../Contract/Api.js"
import { LoginThrottle } from "./LoginThrottle.js"
import { CurrentActor } from "../Contract/Security.js"
import { Sessions } from "./Sessions.js"
import { Users } from "./Users.js"

const invalidLogin = new Unauthorized({ error: "invalid email or password" })

/** Register and login reject a present Origin that is not allowed (a browser on another site). */
const rejectForeignOrigin = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const origins = yield* Origins
  const origin = request.headers["origin"]
  if (origin !== undefined && !origins.isAllowed(origin)) {
    return yield* Effect.fail(new Forbidden({ error: "origin not allowed" }))
  }
})

const currentUserId = Effect.map(CurrentActor, (actor) => actor._tag === "User" ? actor.userId : "")

export const AuthLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const sessions = yield* Sessions
    const throttle = yield* LoginThrottle
    const origins = yield* Origins

    const startSession = (userId: string) =>
      Effect.flatMap(sessions.create(userId), (token) => setCookie(sessions.cookie(token)))

    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          yield* Effect.provideService(rejectForeignOrigin, Origins, origins)
          const hash = yield* Passwords.hash(payload.password)
          const user = yield* users.insert(payload.email, hash)
          if (Option.isNone(user)) return yield* Effect.fail(new Conflict({ error: "email already registered" }))
          yield* startSession(user.value.id)
          return user.value
        }))
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          yield* Effect.provideService(rejectForeignOrigin, Origins, origins)
          if (yield* throttle.isLocked(payload.email)) {
            return yield* Effect.fail(new TooManyRequests({ error: "too many failed logins; try again later" }))
          }
          const row = yield* users.findByEmail(payload.email)
          // Verify against a dummy hash for unknown emails so timing does not reveal which exist.
          const ok = yield* Passwords.verify(
            payload.password,
            Option.isSome(row) ? row.value.password_hash : yield* Passwords.dummyHash
          )
          if (Option.isNone(row) || !ok) {
            yield* throttle.recordFailure(payload.email)
            return yield* Effect.fail(invalidLogin)
          }
          yield* throttle.reset(payload.email)
          yield* startSession(row.value.id)
          return { id: row.value.id, email: row.value.email, createdAt: row.value.created_at }
        }))
      .handle("logout", () =>
        Effect.gen(function*() {
          const actor = yield* CurrentActor
          if (actor._tag === "User") yield* sessions.revoke(actor.sessionHash)
          yield* setCookie(sessions.clearCookie)
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const user = yield* users.findById(yield* currentUserId)
          return yield* Option.match(user, {
            onNone: () => Effect.fail(Unauthorized.default),
            onSome: Effect.succeed
          })
        }))
      .handle("lookup", ({ urlParams }) =>
        Effect.gen(function*() {
          const row = yield* users.findByEmail(urlParams.email)
          return yield* Option.match(row, {
            onNone: () => Effect.fail(NotFound.of("user")),
            onSome: (u) => Effect.succeed({ id: u.id, email: u.email })
          })
        }))
  }))
