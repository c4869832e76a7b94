import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

// docker compose is one of the ways to run the service: every variable the
// configuration table (docs/configuration.md) documents must reach the container.

const root = path.resolve(import.meta.dirname, "../..")

const documented = (): ReadonlyArray<string> =>
  [...fs.readFileSync(path.join(root, "docs", "configuration.md"), "utf8").matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!)

const passedToApp = (): ReadonlySet<string> => {
  const compose = fs.readFileSync(path.join(root, "docker-compose.yml"), "utf8")
  const app = compose.slice(compose.indexOf("\n  app:"), compose.indexOf("\n  prometheus:"))
  return new Set([...app.matchAll(/^\s+- ([A-Z][A-Z0-9_]*)(=|$)/gm)].map((m) => m[1]!))
}

describe("docker-compose.yml", () => {
  it("passes every documented configuration variable to the service", () => {
    const names = documented()
    expect(names.length).toBeGreaterThan(20)
    const passed = passedToApp()
    expect(names.filter((name) => !passed.has(name))).toEqual([])
  })

  it("publishes the port the service listens on (PORT on both sides)", () => {
    const compose = fs.readFileSync(path.join(root, "docker-compose.yml"), "utf8")
    expect(compose).toContain("- PORT=${PORT:-3000}")
    expect(compose).toContain("\"${PORT:-3000}:${PORT:-3000}\"")
  })
})
