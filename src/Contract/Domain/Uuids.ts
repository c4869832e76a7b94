import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * Every id is a UUID. Path ids are checked by `pathId` below; this is for ids
 * that reach the service outside a path (the embedding API's arguments, ids
 * inside a JSON body checked one by one, opaque cursors).
 */
export const isUuid: (value: unknown) => value is string = Schema.is(Schema.UUID)

/** Marks the parse issue of a path id that is no id; `notFoundMessage` finds it. */
const PathIdNotFound: unique symbol = Symbol.for("pipeline-triggers/Contract/Domain/Uuids/PathIdNotFound")

/**
 * A path parameter holding an id (a UUID). A segment that is no id names nothing, so
 * it must answer 404 `{error: "<thing> not found"}` like a missing one, not a
 * 400: its parse issue is marked, and `Http/ErrorMiddleware` answers the 404
 * for it. `thing` is what the endpoint reports missing (for a worker's
 * workspace segment, say, it is the "worker").
 */
export const pathId = (thing: string) =>
  Schema.transformOrFail(Schema.String, Schema.String, {
    strict: true,
    decode: (value, _, ast) =>
      isUuid(value)
        ? ParseResult.succeed(value)
        : ParseResult.fail(new ParseResult.Pointer(PathIdNotFound, value, new ParseResult.Type(ast, value, `${thing} not found`))),
    // The typed client sends the id it holds unchecked: the server decides, as for any path.
    encode: ParseResult.succeed
  })

/** The 404 message when one of the issues of a failed decode is a marked path id. */
export const notFoundMessage = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): string | undefined => issues.find((issue) => issue.path.includes(PathIdNotFound))?.message
