import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as AST from "effect/SchemaAST"

/**
 * Makes the generated OpenAPI document tell the truth (`groups`: every group of the API). `HttpApi` lists the
 * API-wide errors (400, 401, 404, 413, …) under every operation, and keeps the
 * builder's decode error beside ours; here each operation keeps only the
 * statuses it can answer:
 *
 * - 400 where there is something to validate (a body, query or header parameters),
 * - 401 where credentials are required (or the operation declares it),
 * - 404 where the path names something (or the operation declares it),
 * - 413 and 415 where there is a body,
 * - 500 and 503 everywhere (a defect; the database unreachable),
 * - and what the operation declares itself; its group's and middleware's
 *   other statuses (403, 409, …), a middleware's 403 (the Origin check of
 *   cookie calls) only on methods that change something.
 *
 * Effect's marker `$id`s (`/schemas/unknown`) go: repeated, they make the
 * document invalid. Request bodies ignore unknown fields (`onExcessProperty: "ignore"`), so no
 * schema claims `additionalProperties: false`. Contract side: no server code.
 */
export const refine = (
  groups: ReadonlyArray<HttpApiGroup.HttpApiGroup.Any>,
  spec: Record<string, any>
): Record<string, any> => {
  const text = JSON.stringify(spec).replaceAll("#/components/schemas/HttpApiDecodeError", "#/components/schemas/ValidationError")
  const out = JSON.parse(text)
  delete out.components?.schemas?.HttpApiDecodeError
  const declared = declaredStatuses(groups)
  for (const operations of Object.values<Record<string, any>>(out.paths ?? {})) {
    for (const operation of Object.values<any>(operations)) {
      const parameters: ReadonlyArray<{ in: string }> = operation.parameters ?? []
      const hasBody = operation.requestBody !== undefined
      const has = {
        400: hasBody || parameters.some((p) => p.in === "query" || p.in === "header"),
        401: (operation.security ?? []).length > 0,
        404: parameters.some((p) => p.in === "path"),
        413: hasBody,
        415: hasBody
      } as Record<number, boolean>
      const own = declared.get(operation.operationId)
      const keepDeclared = (status: number) =>
        own !== undefined && (own.endpoint.has(status) || (!(status in has) && own.inherited.has(status)))
      for (const key of Object.keys(operation.responses ?? {})) {
        const status = Number(key)
        const keep = status < 400 || status === 500 || status === 503 || keepDeclared(status) || has[status] === true
        if (!keep) delete operation.responses[key]
      }
      for (const response of Object.values<any>(operation.responses ?? {})) {
        for (const media of Object.values<any>(response.content ?? {})) dedupeAnyOf(media.schema)
      }
    }
  }
  dropClosedObjects(out)
  return out
}

/**
 * Statuses each operation (`group.endpoint`) declares: on the endpoint itself,
 * and inherited from its group and middleware (a middleware's 403 only for
 * methods other than GET: the Origin check applies to cookie calls that change something).
 */
const declaredStatuses = (
  groups: ReadonlyArray<HttpApiGroup.HttpApiGroup.Any>
): Map<string, { readonly endpoint: Set<number>; readonly inherited: Set<number> }> => {
  const result = new Map<string, { readonly endpoint: Set<number>; readonly inherited: Set<number> }>()
  for (const group of groups as ReadonlyArray<HttpApiGroup.HttpApiGroup.AnyWithProps>) {
    for (const endpoint of Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      const own = new Set<number>()
      const inherited = new Set<number>()
      collect(endpoint.errorSchema.ast, own)
      collect(group.errorSchema.ast, inherited)
      for (const middleware of [...group.middlewares, ...endpoint.middlewares]) {
        const failures = new Set<number>()
        collect((middleware as any).failure.ast, failures)
        if (endpoint.method === "GET") failures.delete(403)
        for (const status of failures) inherited.add(status)
      }
      result.set(`${group.identifier}.${endpoint.name}`, { endpoint: own, inherited })
    }
  }
  return result
}

const collect = (ast: AST.AST, into: Set<number>) => {
  if (AST.isNeverKeyword(ast)) return
  if (AST.isUnion(ast)) {
    for (const member of ast.types) collect(member, into)
    return
  }
  into.add(HttpApiSchema.getStatusErrorAST(ast))
}

/** `anyOf` listing one schema twice (ours and the builder's decode error, merged above) lists it once. */
const dedupeAnyOf = (schema: any) => {
  if (schema === undefined || !Array.isArray(schema.anyOf)) return
  const seen = new Set<string>()
  schema.anyOf = schema.anyOf.filter((member: unknown) => {
    const key = JSON.stringify(member)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  if (schema.anyOf.length === 1) {
    const [only] = schema.anyOf
    delete schema.anyOf
    Object.assign(schema, only)
  }
}

const dropClosedObjects = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) dropClosedObjects(item)
    return
  }
  if (node === null || typeof node !== "object") return
  const record = node as Record<string, unknown>
  if (record.additionalProperties === false) delete record.additionalProperties
  // Effect marks `unknown`, `object` and `{}` with an `$id` ("/schemas/unknown"); used in
  // several places, the same `$id` twice makes the document invalid.
  if (typeof record.$id === "string" && record.$id.startsWith("/schemas/")) delete record.$id
  for (const value of Object.values(record)) dropClosedObjects(value)
}
