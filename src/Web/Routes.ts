import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"
import { NotFound } from "../Contract/Domain/ApiErrors.js"
import { load, type Site } from "./Assets.js"
import { contractModule, contractModuleName } from "./ContractModule.js"

/**
 * Headers on the page: scripts and styles only from this origin (no inline
 * code, so an injected string cannot run), API calls only to this origin, and
 * the page may not be framed (clickjacking of the write buttons).
 */
export const pageHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/** The dashboard's files in this package (`web/`), found beside the sources so an embedding program needs no path. */
export const dashboardDir = fileURLToPath(new URL("../../web", import.meta.url))

const indexResponse = (site: Site) =>
  HttpServerResponse.text(site.index, {
    contentType: "text/html; charset=utf-8",
    // The page names the current fingerprints, so it must be revalidated on every visit.
    headers: { ...pageHeaders, "cache-control": "no-cache" }
  })

const notFound = HttpServerResponse.unsafeJson({ error: NotFound.of("asset").error }, { status: 404 })

/**
 * Serves a built dashboard at `/` and its assets at `/assets/<fingerprinted name>`
 * on the API's own router, beside `/docs`; anything else stays the API's.
 */
export const layer = (dir: string = dashboardDir) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const site = yield* load(dir, { [contractModuleName]: contractModule() })
      yield* router.get("/", Effect.succeed(indexResponse(site)))
      yield* router.get(
        "/assets/:file",
        Effect.map(HttpRouter.params, (params) => {
          const asset = params.file === undefined ? undefined : site.assets.get(params.file)
          if (asset === undefined) return notFound
          return HttpServerResponse.uint8Array(asset.body, {
            contentType: asset.contentType,
            headers: {
              "x-content-type-options": "nosniff",
              "cache-control": "public, max-age=31536000, immutable"
            }
          })
        })
      )
    })
  )
