import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"

/** One built file of the dashboard, served under its fingerprinted name. */
export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The dashboard as served: the page and its assets keyed by fingerprinted name. */
export interface Site {
  readonly index: string
  readonly assets: ReadonlyMap<string, Asset>
}

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon"
}

/** `app.js` → `app.3f2a9c01b7de.js`: the name changes whenever the content does, so it can be cached for ever. */
export const fingerprint = (name: string, body: Uint8Array): string => {
  const ext = path.extname(name)
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12)
  return `${name.slice(0, name.length - ext.length)}.${hash}${ext}`
}

/**
 * Reads a built dashboard directory (`index.html` plus flat assets), names each
 * asset by its content hash and points the page's `/assets/<name>` references
 * at the fingerprinted names. Read once at start: the files never change while
 * the process runs.
 */
export const load = (dir: string): Effect.Effect<Site> =>
  Effect.promise(async () => {
    const names = (await fs.readdir(dir)).filter((name) => name !== "index.html").sort()
    const assets = new Map<string, Asset>()
    let index = await fs.readFile(path.join(dir, "index.html"), "utf8")
    for (const name of names) {
      const body = new Uint8Array(await fs.readFile(path.join(dir, name)))
      const served = fingerprint(name, body)
      assets.set(served, { body, contentType: contentTypes[path.extname(name)] ?? "application/octet-stream" })
      index = index.replaceAll(`/assets/${name}"`, `/assets/${served}"`)
    }
    return { index, assets }
  })
