import * as JSONSchema from "effect/JSONSchema";
import * as Schema from "effect/Schema";
import { Limit, Payload } from "../Domain/Schemas.js";
import { IdempotencyKey, RunListParams, RunRequest } from "../Runs/Api.js";
/**
 * Tool arguments, built from the REST API's own schemas (the run request's
 * `input`, the Idempotency-Key, the run listing's filters and page size), so
 * an agent and a script are held to the same rules.
 */
const RunId = Schema.UUID.annotations({
    message: () => "runId must be a run id (UUID)",
    description: "The run's id, as run_trigger or list_runs answered it."
});
export const DescribeTriggerArgs = Payload({});
export const RunTriggerArgs = Payload({
    input: RunRequest.fields.input,
    idempotencyKey: Schema.optional(IdempotencyKey.annotations({
        description: "Optional, 1 to 255 characters. A repeat with the same key starts nothing new and answers the first run: " +
            "use it to retry safely after a lost answer."
    }))
});
export const GetRunArgs = Payload({ runId: RunId });
export const ListRunsArgs = Payload({
    status: RunListParams.fields.status.annotations({ description: "Only runs in this status." }),
    // The query parameter is decoded from text; a tool argument is already a number.
    limit: Schema.optional(Schema.typeSchema(Limit)),
    cursor: Schema.optional(Schema.String.annotations({ description: "The previous answer's `nextCursor`, for the next page." }))
});
export const maxWaitSeconds = 60;
export const defaultWaitSeconds = 30;
export const WaitForRunArgs = Payload({
    runId: RunId,
    timeoutSeconds: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, maxWaitSeconds)).annotations({
        message: () => `timeoutSeconds must be an integer from 0 to ${maxWaitSeconds}`,
        jsonSchema: {
            type: "integer",
            minimum: 0,
            maximum: maxWaitSeconds,
            default: defaultWaitSeconds,
            description: "How long to wait for the run to end, in seconds."
        }
    }))
});
/**
 * The JSON Schema of a tool's arguments as MCP clients want it: a plain
 * object schema, references inlined, without Effect's `$schema` and `$id`
 * markers (2020-12 is MCP's default dialect, and these schemas read the same in it).
 */
export const inputSchemaOf = (schema) => {
    const { $defs, $schema: _, ...root } = JSONSchema.make(schema);
    const inline = (node) => {
        if (Array.isArray(node))
            return node.map(inline);
        if (node === null || typeof node !== "object")
            return node;
        const record = node;
        if (typeof record.$ref === "string" && record.$ref.startsWith("#/$defs/")) {
            return inline($defs?.[record.$ref.slice("#/$defs/".length)]);
        }
        const out = {};
        for (const [key, value] of Object.entries(record)) {
            if (key === "$id" || (key === "title" && value === "unknown"))
                continue;
            out[key] = inline(value);
        }
        return out;
    };
    const inlined = inline(root);
    // An empty struct is `{}` to Effect (any non-null value); a tool's arguments are always an object.
    return inlined.type === "object" ? inlined : { type: "object", properties: {} };
};
//# sourceMappingURL=ToolSchemas.js.map