import * as Schema from "effect/Schema"

/** Request payload structs report every invalid field, not only the first. */
export const Payload = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })

export const Uuid = Schema.UUID

/** Timestamps travel as ISO 8601 UTC strings; the database hands out `Date`s. */
export const Timestamp = Schema.Date

/**
 * An ISO 8601 timestamp given by a caller (a query filter): a date
 * (`2026-11-25`, midnight UTC) or a date and time with `Z` or an offset.
 * `Schema.Date` alone would take anything `Date` parses ("1", "Nov 25"),
 * or a time without a zone read in the server's own zone.
 */
const isoPattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/

/** What `IsoTimestamp` accepts (for a decoder that checks by hand). */
export const isIsoTimestamp = (s: string): boolean => isoPattern.test(s) && !Number.isNaN(Date.parse(s))

export const IsoTimestamp = Schema.String.pipe(
  Schema.filter(isIsoTimestamp, {
    message: () => "must be an ISO 8601 timestamp, e.g. 2026-11-25T08:00:00Z",
    jsonSchema: { format: "date-time" }
  }),
  Schema.compose(Schema.Date)
)

export const Role = Schema.Literal("viewer", "operator", "admin", "owner")
export type Role = typeof Role.Type

const order: Record<Role, number> = { viewer: 0, operator: 1, admin: 2, owner: 3 }
export const roleAtLeast = (role: Role, min: Role): boolean => order[role] >= order[min]

/**
 * An integer query parameter from `min` to `max`: decoded from its string,
 * described in the OpenAPI document as the integer it is (with its bounds and
 * default) rather than as "a string to be decoded into a number".
 */
export const IntParam = (name: string, options: {
  readonly min: number
  readonly max: number
  readonly default?: number
  readonly description: string
}) =>
  Schema.NumberFromString.pipe(
    Schema.int(),
    Schema.between(options.min, options.max)
  ).annotations({
    message: () => `${name} must be an integer from ${options.min} to ${options.max}`,
    jsonSchema: {
      type: "integer",
      minimum: options.min,
      maximum: options.max,
      ...(options.default === undefined ? {} : { default: options.default }),
      description: options.description
    }
  })

/** An integer body field from `min` to `max`; `defaultValue`, when given, is what an absent field means (shown in the OpenAPI document). */
export const IntBetween = (min: number, max: number, defaultValue?: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `must be an integer from ${min} to ${max}` }),
    Schema.between(min, max, { message: () => `must be an integer from ${min} to ${max}` })
  ).annotations({
    jsonSchema: { type: "integer", minimum: min, maximum: max, ...(defaultValue === undefined ? {} : { default: defaultValue }) }
  })

/** A number body field from `min` to `max` (fractions allowed). */
export const NumberBetween = (min: number, max: number, defaultValue?: number) =>
  Schema.Number.pipe(
    Schema.finite({ message: () => `must be a number from ${min} to ${max}` }),
    Schema.between(min, max, { message: () => `must be a number from ${min} to ${max}` })
  ).annotations({
    jsonSchema: { type: "number", minimum: min, maximum: max, ...(defaultValue === undefined ? {} : { default: defaultValue }) }
  })

/** `limit` query parameter: 1..200, default 50. */
export const Limit = IntParam("limit", { min: 1, max: 200, default: 50, description: "Page size." })

/**
 * A JSON value chosen by the user (a trigger's or a run's input): data for
 * the worker, never what it executes (that is the trigger's `command`).
 */
export const inputJsonSchema = {
  description: "Any JSON value (checked against the trigger's `inputSchema` when it declares one), passed to the worker " +
    "as data: the pipeline-worker agent runs the trigger's `command` with the whole input on stdin and in PIPELINE_INPUT, " +
    "and never executes anything from the input; SDK workers read it as they like."
}

/** A run's or trigger's input as it is read back. */
export const InputValue = Schema.Unknown.annotations({ jsonSchema: inputJsonSchema })

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
