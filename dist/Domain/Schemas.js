import * as Schema from "effect/Schema";
/** Request payload structs report every invalid field, not only the first. */
export const Payload = (fields) => Schema.Struct(fields).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } });
export const Uuid = Schema.UUID;
/** Timestamps travel as ISO 8601 UTC strings; the database hands out `Date`s. */
export const Timestamp = Schema.Date;
/**
 * An ISO 8601 timestamp given by a caller (a query filter): a date
 * (`2026-11-25`, midnight UTC) or a date and time with `Z` or an offset.
 * `Schema.Date` alone would take anything `Date` parses ("1", "Nov 25"),
 * or a time without a zone read in the server's own zone.
 */
const isoPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
export const IsoTimestamp = Schema.String.pipe(Schema.filter((s) => isoPattern.test(s) && !Number.isNaN(Date.parse(s)), {
    message: () => "must be an ISO 8601 timestamp, e.g. 2026-11-25T08:00:00Z",
    jsonSchema: { format: "date-time" }
}), Schema.compose(Schema.Date));
export const Role = Schema.Literal("viewer", "operator", "admin", "owner");
const order = { viewer: 0, operator: 1, admin: 2, owner: 3 };
export const roleAtLeast = (role, min) => order[role] >= order[min];
/**
 * An integer query parameter from `min` to `max`: decoded from its string,
 * described in the OpenAPI document as the integer it is (with its bounds and
 * default) rather than as "a string to be decoded into a number".
 */
export const IntParam = (name, options) => Schema.NumberFromString.pipe(Schema.int(), Schema.between(options.min, options.max)).annotations({
    message: () => `${name} must be an integer from ${options.min} to ${options.max}`,
    jsonSchema: {
        type: "integer",
        minimum: options.min,
        maximum: options.max,
        ...(options.default === undefined ? {} : { default: options.default }),
        description: options.description
    }
});
/** `limit` query parameter: 1..200, default 50. */
export const Limit = IntParam("limit", { min: 1, max: 200, default: 50, description: "Page size." });
/**
 * A JSON value chosen by the user (a trigger's or a run's input), described
 * with the convention of the `pipeline-worker` agent.
 */
export const inputJsonSchema = {
    description: "Any JSON value, passed to the worker as is. The pipeline-worker agent runs `input.command` " +
        "(a string for /bin/sh -c, or an array of strings: program and arguments) with the whole input on stdin " +
        "and in PIPELINE_INPUT; SDK workers read it as they like."
};
/** A run's or trigger's input as it is read back. */
export const InputValue = Schema.Unknown.annotations({ jsonSchema: inputJsonSchema });
/** Every list endpoint answers this shape, newest first. */
export const Page = (item) => Schema.Struct({ items: Schema.Array(item), nextCursor: Schema.NullOr(Schema.String) });
export const Email = Schema.Trim.pipe(Schema.compose(Schema.Lowercase), Schema.compose(Schema.String.pipe(Schema.maxLength(254), Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" }))));
//# sourceMappingURL=Schemas.js.map