import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig, layer as appConfigLayer } from "../../src/Config/AppConfig.js"
import { Origins } from "../../src/Http/Origins.js"

const secrets = {
  JWT_SECRET: "origins-test-jwt-secret-0123456789abcdef",
  SECRETS_KEY: Buffer.alloc(32, 3).toString("base64")
}

const originsFrom = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const origins = yield* Origins
    const config = yield* AppConfig
    return { origins, config }
  }).pipe(
    Effect.provide(Origins.Default.pipe(Layer.provideMerge(appConfigLayer))),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ...secrets, ...env }))))
  )

describe("allowed origins for cookie calls", () => {
  it.effect("without PUBLIC_URL, both loopback spellings of the port are allowed (the log prints 127.0.0.1)", () =>
    Effect.gen(function*() {
      const { config, origins } = yield* originsFrom({ PORT: "3456" })
      expect(config.publicUrl).toBe("http://localhost:3456")
      expect(origins.isAllowed("http://localhost:3456")).toBe(true)
      expect(origins.isAllowed("http://127.0.0.1:3456")).toBe(true)
      expect(origins.isAllowed("http://[::1]:3456")).toBe(true)
      expect(origins.isAllowed("http://127.0.0.1:3457")).toBe(false)
      expect(origins.isAllowed("http://evil.example")).toBe(false)
    }))

  it.effect("with PUBLIC_URL, only that origin and ALLOWED_ORIGINS are allowed", () =>
    Effect.gen(function*() {
      const { origins } = yield* originsFrom({
        PORT: "3456",
        PUBLIC_URL: "https://pipelines.example.com/app",
        ALLOWED_ORIGINS: "https://admin.example.com"
      })
      expect(origins.isAllowed("https://pipelines.example.com")).toBe(true)
      expect(origins.isAllowed("https://admin.example.com")).toBe(true)
      expect(origins.isAllowed("http://localhost:3456")).toBe(false)
      expect(origins.isAllowed("http://127.0.0.1:3456")).toBe(false)
    }))
})
