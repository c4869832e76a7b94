import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { layerHttp } from "../../src/App.js"
import { testConfig as configWith, type TestSettings } from "./TestConfig.js"
import * as TestDatabase from "./TestDatabase.js"

/** Debian's chromium: the tests never download a browser. */
export const executablePath = "/usr/bin/chromium"

/** The base URL the service under test listens on. */
export class ServiceUrl extends Context.Tag("test/ServiceUrl")<ServiceUrl, string>() {}

const freePort = Effect.async<number>((resume) => {
  const probe = net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const port = (probe.address() as net.AddressInfo).port
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * The whole service on a real port and a fresh database, with PUBLIC_URL set
 * to the address the browser opens, so the Origin it sends on writes is allowed.
 */
export const serviceLayerWith = (overrides: TestSettings = {}) =>
  Layer.unwrapEffect(
    Effect.map(freePort, (port) => {
      const url = `http://127.0.0.1:${port}`
      return layerHttp.pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
        Layer.provideMerge(TestDatabase.layer),
        Layer.provideMerge(configWith({ ...overrides, publicUrl: url })),
        Layer.merge(Layer.succeed(ServiceUrl, url))
      )
    })
  )

export const serviceLayer = serviceLayerWith()

/** One headless Chromium with a fresh profile directory, closed (and the profile removed) with the scope. */
export const browser: Effect.Effect<BrowserContext, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const profile = await fs.mkdtemp(path.join(os.tmpdir(), "pts-chromium-"))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      viewport: { width: 1280, height: 800 },
      // Local times on the pages (and in the screenshots) do not depend on the machine's zone.
      timezoneId: "UTC",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    return { context, profile }
  }),
  ({ context, profile }) => Effect.promise(() => context.close().then(() => fs.rm(profile, { recursive: true, force: true })))
).pipe(Effect.map(({ context }) => context))

/**
 * Saves a full-page screenshot to `docs/screenshots/<name>.png` when
 * SCREENSHOTS=1 (`SCREENSHOTS=1 npx vitest run test/web` regenerates the
 * README's pictures); otherwise takes none, so ordinary runs leave the
 * committed pictures alone and spend no time on them.
 */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  if (process.env.SCREENSHOTS !== "1") return
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true })
}

/**
 * A new page of `context` with a 60 s default timeout, and the uncaught page
 * errors it collects (a test ends by expecting none).
 */
export const openPage = (context: BrowserContext): Effect.Effect<{ readonly page: Page; readonly errors: Array<string> }> =>
  Effect.promise(async () => {
    const page = await context.newPage()
    page.setDefaultTimeout(60_000)
    const errors: Array<string> = []
    page.on("pageerror", (error) => errors.push(error.message))
    return { page, errors }
  })

/** One API call from inside the page: the session cookie and the Origin the browser sends, as the dashboard's own calls. */
export const inPage = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(async ({ method, path, body }) => {
    const res = await fetch(`/api/v1${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: res.status, body: await res.json() as any }
  }, { method, path, body })
