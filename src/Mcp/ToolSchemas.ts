import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { Limit, Payload } from "../Contract/Domain/Schemas.js"
import { ConcurrencyKey, IdempotencyKey, RunInputField, RunListParams, RunOptionsFields } from "../Contract/RunsApi.js"

/**
 * Tool arguments, built from the REST API's own schemas (the run request's
 * `input`, the Idempotency-Key, the run listing's filters and page size), so
 * an agent and a script are held to the same rules.
 */
const RunId = Schema.UUID.annotations({
  message: () => "runId must be a run id (UUID)",
  description: "The run's id, as run_trigger or list_runs answered it."
})

export const DescribeTriggerArgs = Payload({})

export const RunTriggerArgs = Payload({
  input: RunInputField,
  concurrencyKey: Schema.optional(ConcurrencyKey),
  delaySeconds: RunOptionsFields.delaySeconds,
  priority: RunOptionsFields.priority,
  idempotencyKey: Schema.optional(IdempotencyKey.annotations({
    description: "Optional, 1 to 255 characters. A repeat with the same key starts nothing new and answers the first run: " +
      "use it to retry safely after a lost answer."
  }))
})

export const GetRunArgs = Payload({ runId: RunId })

export const ReplayRunArgs = Payload({
  runId: RunId,
  input: Schema.optional(Schema.Unknown.annotations({
    description: "The new run's input; the replayed run's own when absent. It must match the trigger's input schema."
  })),
  idempotencyKey: RunTriggerArgs.fields.idempotencyKey
})

export const ListRunsArgs = Payload({
  status: RunListParams.fields.status.annotations({ description: "Only runs in this status." }),
  // The query parameter is decoded from text; a tool argument is already a number.
  limit: Schema.optional(Schema.typeSchema(Limit)),
  cursor: Schema.optional(Schema.String.annotations({ description: "The previous answer's `nextCursor`, for the next page." }))
})

export const maxWaitSeconds = 60
export const defaultWaitSeconds = 30

export const WaitForRunArgs = Payload({
  runId: RunId,
  timeoutSeconds: Schema.optional(
    Schema.Number.pipe(
      Schema.int(),
      Schema.between(0, maxWaitSeconds)
    ).annotations({
      message: () => `timeoutSeconds must be an integer from 0 to ${maxWaitSeconds}`,
      jsonSchema: {
        type: "integer",
        minimum: 0,
        maximum: maxWaitSeconds,
        default: defaultWaitSeconds,
        description: "How long to wait for the run to end, in seconds."
      }
    })
  )
})

/**
 * The JSON Schema of a tool's arguments as MCP clients want it: a plain
 * object schema, references inlined, without Effect's `$schema` and `$id`
 * markers (2020-12 is MCP's default dialect, and these schemas read the same in it).
 */
export const inputSchemaOf = (schema: Schema.Schema<any, any, never>): Record<string, unknown> => {
  const { $defs, $schema: _, ...root } = JSONSchema.make(schema) as Record<string, any>
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline)
    if (node === null || typeof node !== "object") return node
    const record = node as Record<string, unknown>
    if (typeof record.$ref === "string" && record.$ref.startsWith("#/$defs/")) {
      return inline($defs?.[record.$ref.slice("#/$defs/".length)])
    }
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(record)) {
      if (key === "$id" || (key === "title" && value === "unknown")) continue
      out[key] = inline(value)
    }
    return out
  }
  const inlined = inline(root) as Record<string, unknown>
  // An empty struct is `{}` to Effect (any non-null value); a tool's arguments are always an object.
  return inlined.type === "object" ? inlined : { type: "object", properties: {} }
}

/** Local references (`#`, `#/…`) of a schema moved to `at` (a JSON Pointer), every other value as it was. */
const rebase = (node: unknown, at: string): unknown => {
  if (Array.isArray(node)) return node.map((n) => rebase(n, at))
  if (node === null || typeof node !== "object") return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    out[key] = (key === "$ref" || key === "$dynamicRef") && typeof value === "string" && (value === "#" || value.startsWith("#/"))
      ? `#${at}${value.slice(1)}`
      : rebase(value, at)
  }
  return out
}

/**
 * `run_trigger`'s arguments with the trigger's `inputSchema` as the schema
 * of `input`, so an agent sees the shape it must send. The trigger's schema
 * is placed under `properties.input`: its own local references are rebased
 * there, and its `$schema` and `$id` (which would start a resource of their
 * own) are left out. `input` is required when the trigger has no input of
 * its own to fall back on.
 */
export const runTriggerInputSchema = (triggerSchema: unknown, hasDefaultInput: boolean): Record<string, unknown> => {
  const base = inputSchemaOf(RunTriggerArgs)
  if (triggerSchema === null || triggerSchema === undefined) return base
  const properties = (base.properties ?? {}) as Record<string, unknown>
  const described = (properties.input ?? {}) as Record<string, unknown>
  const placed = typeof triggerSchema === "object" && !Array.isArray(triggerSchema)
    ? (({ $id: _id, $schema: _schema, ...rest }) => rest)(rebase(triggerSchema, "/properties/input") as Record<string, unknown>)
    : triggerSchema
  const input = typeof placed === "object" && placed !== null
    ? { description: described.description, ...placed }
    : placed
  const required = hasDefaultInput ? (base.required as Array<string> | undefined) : [...new Set([...(base.required as Array<string> | undefined ?? []), "input"])]
  return { ...base, properties: { ...properties, input }, ...(required === undefined || required.length === 0 ? {} : { required }) }
}
