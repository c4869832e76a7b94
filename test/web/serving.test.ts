import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { auditActions } from "../../src/Contract/AuditApi.js"
import { RunStatus } from "../../src/Contract/Domain/Run.js"
import { call, layer } from "../support/TestApp.js"

const assetPaths = (html: string): Array<string> => [...html.matchAll(/"(\/assets\/[^"]+)"/g)].map((m) => m[1]!)

withLayer(layer(), { excludeTestServices: true })("dashboard serving", (it) => {
  describe("the page", () => {
    it.effect("/ is the page, revalidated on every visit, with a strict CSP and no framing", () =>
      Effect.gen(function*() {
        const res = yield* call("GET", "/")
        expect(res.status).toBe(200)
        expect(res.headers["content-type"]).toContain("text/html")
        expect(res.headers["cache-control"]).toBe("no-cache")
        const csp = res.headers["content-security-policy"]!
        expect(csp).toContain("script-src 'self'")
        expect(csp).toContain("style-src 'self'")
        expect(csp).toContain("frame-ancestors 'none'")
        expect(csp).not.toContain("unsafe-inline")
        expect(res.headers["x-content-type-options"]).toBe("nosniff")
        expect(res.headers["referrer-policy"]).toBe("no-referrer")
      }))

    it.effect("assets are named by their content hash and cached for a year", () =>
      Effect.gen(function*() {
        const page = yield* call("GET", "/")
        const paths = assetPaths(page.body as string)
        expect(paths.length).toBe(2)
        for (const path of paths) {
          expect(path).toMatch(/^\/assets\/app\.[0-9a-f]{12}\.(js|css)$/)
          const res = yield* call("GET", path)
          expect(res.status).toBe(200)
          expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
          expect(res.headers["x-content-type-options"]).toBe("nosniff")
        }
      }))

    it.effect("modules import each other by fingerprinted name; every import resolves", () =>
      Effect.gen(function*() {
        const page = yield* call("GET", "/")
        const app = assetPaths(page.body as string).find((p) => p.endsWith(".js"))!
        const seen = new Set<string>()
        const queue = [app]
        while (queue.length > 0) {
          const path = queue.shift()!
          if (seen.has(path)) continue
          seen.add(path)
          const res = yield* call("GET", path)
          expect(res.status).toBe(200)
          const source = res.body as string
          // No import still names an unfingerprinted sibling.
          expect(source).not.toMatch(/from\s*"\.\/[a-z]+\.js"/)
          for (const m of source.matchAll(/from\s*"\.\/([^"]+)"/g)) {
            expect(m[1]).toMatch(/^[a-z]+\.[0-9a-f]{12}\.js$/)
            queue.push(`/assets/${m[1]}`)
          }
        }
        // The shell, its helpers and every page.
        expect(seen.size).toBeGreaterThanOrEqual(10)
      }))

    it.effect("the contract's lists reach the dashboard as a generated module: audit actions, run statuses", () =>
      Effect.gen(function*() {
        const page = yield* call("GET", "/")
        const app = assetPaths(page.body as string).find((p) => p.endsWith(".js"))!
        const appSource = (yield* call("GET", app)).body as string
        const auditName = /from\s*"\.\/(audit\.[0-9a-f]{12}\.js)"/.exec(appSource)?.[1]
        expect(auditName).toBeDefined()
        const audit = (yield* call("GET", `/assets/${auditName}`)).body as string
        const contractName = /from\s*"\.\/(contract\.[0-9a-f]{12}\.js)"/.exec(audit)?.[1]
        expect(contractName).toBeDefined()
        const contract = yield* call("GET", `/assets/${contractName}`)
        expect(contract.status).toBe(200)
        expect(contract.headers["content-type"]).toContain("text/javascript")
        const listOf = (name: string) => JSON.parse(new RegExp(`export const ${name} = (\\[[^\\]]*\\])`).exec(contract.body)![1]!)
        expect(listOf("auditActions")).toEqual([...auditActions])
        expect(listOf("auditActions")).toEqual(expect.arrayContaining(["run.cancelled", "worker.revoked", "worker.drain_changed", "webhook.redelivered"]))
        expect(listOf("runStatuses")).toEqual([...RunStatus.literals])
        // The dashboard keeps no copy of its own.
        expect(audit).not.toMatch(/"worker\.registered"/)
      }))

    it.effect("an unknown asset and an unknown route keep the API's 404 body", () =>
      Effect.gen(function*() {
        const asset = yield* call("GET", "/assets/app.js")
        expect(asset.status).toBe(404)
        expect(asset.body).toEqual({ error: "asset not found" })
        const route = yield* call("GET", "/nowhere")
        expect(route.status).toBe(404)
        expect(typeof route.body.error).toBe("string")
      }))
  })
})
