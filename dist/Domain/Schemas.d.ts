import * as Schema from "effect/Schema";
/** Request payload structs report every invalid field, not only the first. */
export declare const Payload: <Fields extends Schema.Struct.Fields>(fields: Fields) => Schema.Struct<Fields>;
export declare const Uuid: typeof Schema.UUID;
/** Timestamps travel as ISO 8601 UTC strings; the database hands out `Date`s. */
export declare const Timestamp: typeof Schema.Date;
export declare const IsoTimestamp: Schema.transform<Schema.filter<typeof Schema.String>, typeof Schema.Date>;
export declare const Role: Schema.Literal<["viewer", "operator", "admin", "owner"]>;
export type Role = typeof Role.Type;
export declare const roleAtLeast: (role: Role, min: Role) => boolean;
/**
 * An integer query parameter from `min` to `max`: decoded from its string,
 * described in the OpenAPI document as the integer it is (with its bounds and
 * default) rather than as "a string to be decoded into a number".
 */
export declare const IntParam: (name: string, options: {
    readonly min: number;
    readonly max: number;
    readonly default?: number;
    readonly description: string;
}) => Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>;
/** `limit` query parameter: 1..200, default 50. */
export declare const Limit: Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>;
/**
 * A JSON value chosen by the user (a trigger's or a run's input), described
 * with the convention of the `pipeline-worker` agent.
 */
export declare const inputJsonSchema: {
    description: string;
};
/** A run's or trigger's input as it is read back. */
export declare const InputValue: Schema.SchemaClass<unknown, unknown, never>;
/** Every list endpoint answers this shape, newest first. */
export declare const Page: <A, I, R>(item: Schema.Schema<A, I, R>) => Schema.Struct<{
    items: Schema.Array$<Schema.Schema<A, I, R>>;
    nextCursor: Schema.NullOr<typeof Schema.String>;
}>;
export declare const Email: Schema.transform<Schema.transform<typeof Schema.Trim, typeof Schema.Lowercase>, Schema.filter<Schema.filter<typeof Schema.String>>>;
//# sourceMappingURL=Schemas.d.ts.map