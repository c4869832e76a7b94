import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as FindMyWay from "find-my-way-ts"

/** What a request that matches no route is counted and logged as (bounded label cardinality). */
export const unmatched = "unmatched"

/** Paths served beside the API's endpoints (dashboard, docs, probes, metrics); the composition adds the worker channel's. */
export const extraRoutes: ReadonlyArray<`/${string}`> = [
  "/",
  "/assets/:file",
  "/docs",
  "/api/v1/openapi.json",
  "/metrics",
  "/api/v1/metrics",
  "/health/live",
  "/health/ready"
]

/**
 * The route template of a request (`/api/v1/runs/:id`, never the raw path),
 * for metric labels and request logs. Read from the API definition the
 * composition passes in (`App`), so new endpoints are covered without a list
 * to keep in step; one lookup in a radix tree per request. The method is not
 * part of the match: a CORS preflight is labelled with the route it asks about.
 */
export const make = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  extra: ReadonlyArray<`/${string}`>
): (url: string) => string => {
  const router = FindMyWay.make<string>()
  const paths = new Set<string>(extra)
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      paths.add(endpoint.path)
    }
  })
  for (const path of paths) router.all(path as `/${string}`, path)
  return (url) => router.find("GET", url)?.handler ?? unmatched
}
