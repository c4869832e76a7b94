import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

/**
 * The server with each request's fiber holding only the services the HTTP
 * layer reads while it answers: the platform's (`HttpRouter.DefaultServices`),
 * the API description, the server and the scope, not the ~90 the app is built
 * with.
 *
 * Why: Effect's context is an immutable map, copied whole on every
 * `provideService` and merge. Per request, the Node server adds the request
 * to the fiber's context, the router copies it, and `HttpApiBuilder` merges it
 * into the handler group's own; with the whole app in it, those copies were a
 * quarter of everything a run allocated (a heap profile of the lifecycle
 * bench). Nothing is lost: every handler, middleware and extra route takes
 * its services from the context it was built with (the types say so: what
 * `HttpApiBuilder.serve` needs per request is exactly the tags kept here).
 */
export const layer = Layer.effect(
  HttpServer.HttpServer,
  Effect.map(HttpServer.HttpServer, (server) =>
    HttpServer.make({
      address: server.address,
      // `serve` is called where `HttpApiBuilder.serve` is built, whose context
      // holds every tag kept (its layer requires them); the server's type
      // erases the app's needs to `Scope`, hence the cast.
      serve: (app, middleware) =>
        Effect.mapInputContext(
          middleware === undefined ? server.serve(app) : server.serve(app, middleware),
          (context: Context.Context<Scope.Scope>) => lean(context as Context.Context<Needed>)
        )
    }))
)

type Needed =
  | Scope.Scope
  | HttpServer.HttpServer
  | HttpApi.Api
  | HttpPlatform.HttpPlatform
  | FileSystem.FileSystem
  | Path.Path
  | Etag.Generator

const lean = Context.pick(
  Scope.Scope,
  HttpServer.HttpServer,
  HttpApi.Api,
  HttpPlatform.HttpPlatform,
  FileSystem.FileSystem,
  Path.Path,
  Etag.Generator
)
