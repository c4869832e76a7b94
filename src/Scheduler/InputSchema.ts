import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

/**
 * A trigger's `inputSchema`: JSON Schema (draft 2020-12, as Ajv implements
 * it), compiled to a function that checks a run's input. One Ajv instance
 * for the process: building one compiles the meta-schemas (tens of
 * milliseconds), compiling a trigger's schema takes about one.
 */

// ajv-formats is CommonJS: under NodeNext its plugin is the default import's `default`.
const addFormats = (addFormatsModule as unknown as { readonly default: (ajv: Ajv2020) => Ajv2020 }).default

const ajv = new Ajv2020({
  // Every failing path, not only the first (capped in `problemsOf`).
  allErrors: true,
  // Unknown keywords are refused (a typo like "requird" would silently check nothing); no console output.
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  logger: false
})
addFormats(ajv)

/** A check of one input: undefined when it is valid, else the failures (path and message). */
export type InputCheck = (input: unknown) => ReadonlyArray<InputProblem> | undefined

export interface InputProblem {
  /** Where in the run's input, e.g. `input.ref` or `input.steps[0].name`; `input` for the value itself. */
  readonly path: string
  readonly message: string
}

/** At most this many failures are reported for one input. */
const maxProblems = 10

const pathOf = (error: ErrorObject): string => {
  const segments = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
  // `required` names the missing property on its parent: the path names the property itself.
  if (error.keyword === "required" && typeof error.params.missingProperty === "string") segments.push(error.params.missingProperty)
  return segments.reduce((path, segment) => /^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`, "input")
}

const messageOf = (error: ErrorObject): string => {
  if (error.keyword === "required") return "is required"
  if (error.keyword === "additionalProperties" && typeof error.params.additionalProperty === "string") {
    return `must not have the property "${error.params.additionalProperty}"`
  }
  if (error.keyword === "enum" && Array.isArray(error.params.allowedValues)) {
    return `must be one of ${error.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(", ")}`
  }
  return error.message ?? "is not valid"
}

const problemsOf = (validate: ValidateFunction, input: unknown): ReadonlyArray<InputProblem> | undefined => {
  if (validate(input)) return undefined
  const errors = validate.errors ?? []
  return errors.slice(0, maxProblems).map((error) => ({ path: pathOf(error), message: messageOf(error) }))
}

/**
 * Compiles a schema: its check, or why it is not a schema Ajv can use
 * (invalid against the 2020-12 meta-schema, an unknown keyword or format, a
 * `$ref` that does not resolve inside it: nothing is ever fetched).
 */
export const compile = (schema: unknown): { readonly check: InputCheck } | { readonly problem: string } => {
  if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
    return { problem: "must be a JSON Schema: an object (or true/false)" }
  }
  try {
    const validate = ajv.compile(schema as object)
    return { check: (input) => problemsOf(validate, input) }
  } catch (error) {
    // Ajv calls the schema `data` in its own check of it ("data/type must be ..."): say where in the schema instead.
    const message = error instanceof Error ? error.message : String(error)
    return { problem: message.replace(/\bdata(\/\S*)? /g, (_, at: string | undefined) => `${at ?? "(the schema)"} `) }
  } finally {
    // The compiled function stands alone: dropping the schema from Ajv's registry keeps memory
    // bounded and lets two triggers use the same `$id`.
    if (typeof schema === "object" && schema !== null) {
      try {
        ajv.removeSchema(schema as object)
      } catch {
        // Never added (compilation failed first).
      }
    }
  }
}

/** The failures as one sentence, e.g. `input.ref: is required; input.n: must be integer`. */
export const describe = (problems: ReadonlyArray<InputProblem>): string => problems.map((p) => `${p.path}: ${p.message}`).join("; ")

/**
 * The failures as a 400's `details.fieldErrors`: under the request's field
 * (`input`, the body field that failed), one entry per failing path.
 */
export const fieldErrors = (problems: ReadonlyArray<InputProblem>): Record<string, Array<string>> => ({
  input: problems.map((p) => `${p.path}: ${p.message}`)
})
