import * as Reactivity from "@effect/experimental/Reactivity"
import { describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { layerPg } from "../../src/Db/Database.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { migrationChecks } from "./MigrationChecks.js"

describe("migrations on Postgres", () => {
  migrationChecks(
    Layer.unwrapScoped(Effect.map(freshDatabaseUrl, (url) => layerPg(Redacted.make(url)))).pipe(Layer.provide(Reactivity.layer))
  )
})
