import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * Branded ids: a value of these types was checked to be a UUID, so it can go
 * to a uuid column without a cast error. Ids come in as path parameters
 * (decoded by `pathId` below) or from rows the database wrote.
 */
export const WorkspaceId = Schema.UUID.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

export const EnvironmentId = Schema.UUID.pipe(Schema.brand("EnvironmentId"))
export type EnvironmentId = typeof EnvironmentId.Type

export const TriggerId = Schema.UUID.pipe(Schema.brand("TriggerId"))
export type TriggerId = typeof TriggerId.Type

export const RunId = Schema.UUID.pipe(Schema.brand("RunId"))
export type RunId = typeof RunId.Type

export const WorkerId = Schema.UUID.pipe(Schema.brand("WorkerId"))
export type WorkerId = typeof WorkerId.Type

export const ApiKeyId = Schema.UUID.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

/**
 * For ids that reach the service outside a schema (the embedding API's
 * arguments, ids inside a JSON body checked one by one, opaque cursors).
 */
export const isUuid: (value: unknown) => value is string = Schema.is(Schema.UUID)

/** Marks the parse issue of a path id that is no id; `notFoundMessage` finds it. */
const PathIdNotFound: unique symbol = Symbol.for("pipeline-triggers/Domain/Ids/PathIdNotFound")

/**
 * A path parameter holding an id. A segment that is no id names nothing, so
 * it must answer 404 `{error: "<thing> not found"}` like a missing one, not a
 * 400: its parse issue is marked, and `Http/ErrorMiddleware` answers the 404
 * for it. `thing` is what the endpoint reports missing (for a worker's
 * workspace segment, say, it is the "worker").
 */
export const pathId = <A extends string>(id: Schema.Schema<A, string>, thing: string) => {
  const is = Schema.is(id)
  // The typed client sends the id it holds unchecked: the server decides, as for any path.
  const held = Schema.declare((value: unknown): value is A => typeof value === "string")
  return Schema.transformOrFail(Schema.String, held, {
    strict: true,
    decode: (value, _, ast) =>
      is(value)
        ? ParseResult.succeed(value)
        : ParseResult.fail(new ParseResult.Pointer(PathIdNotFound, value, new ParseResult.Type(ast, value, `${thing} not found`))),
    encode: ParseResult.succeed
  })
}

/** The 404 message when one of the issues of a failed decode is a marked path id. */
export const notFoundMessage = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): string | undefined => issues.find((issue) => issue.path.includes(PathIdNotFound))?.message
