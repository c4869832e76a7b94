import * as Schema from "effect/Schema";
export declare const DescribeTriggerArgs: Schema.Struct<{}>;
export declare const RunTriggerArgs: Schema.Struct<{
    input: Schema.optional<Schema.SchemaClass<unknown, unknown, never>>;
    idempotencyKey: Schema.optional<Schema.refine<string, Schema.filter<typeof Schema.String>>>;
}>;
export declare const GetRunArgs: Schema.Struct<{
    runId: Schema.refine<string, typeof Schema.String>;
}>;
export declare const ListRunsArgs: Schema.Struct<{
    status: Schema.optional<Schema.Literal<["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out"]>>;
    limit: Schema.optional<Schema.SchemaClass<number, number, never>>;
    cursor: Schema.optional<Schema.SchemaClass<string, string, never>>;
}>;
export declare const maxWaitSeconds = 60;
export declare const defaultWaitSeconds = 30;
export declare const WaitForRunArgs: Schema.Struct<{
    runId: Schema.refine<string, typeof Schema.String>;
    timeoutSeconds: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
}>;
/**
 * The JSON Schema of a tool's arguments as MCP clients want it: a plain
 * object schema, references inlined, without Effect's `$schema` and `$id`
 * markers (2020-12 is MCP's default dialect, and these schemas read the same in it).
 */
export declare const inputSchemaOf: (schema: Schema.Schema<any, any, never>) => Record<string, unknown>;
//# sourceMappingURL=ToolSchemas.d.ts.map