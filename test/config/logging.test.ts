import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as PgliteClient from "../../src/Db/PgliteClient.js"
import { migrate } from "../../src/Db/Migrations.js"

/** Captures what the default (logfmt) format would print. */
const capture = () => {
  const lines: Array<string> = []
  const logger = Logger.map(Logger.logfmtLogger, (line) => {
    lines.push(line)
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

describe("logs", () => {
  it.effect("a log line carries its message once and its data under keys of their own", () =>
    Effect.gen(function*() {
      const { layer, lines } = capture()
      yield* migrate.pipe(Effect.provide(Layer.merge(PgliteClient.layer(undefined), layer)))
      const line = lines.find((l) => l.includes("migrations applied"))
      expect(line).toBeDefined()
      expect(line!.match(/\bmessage=/g)).toHaveLength(1)
      expect(line, line).toMatch(/ migrations=1_initial,2_outbox_payload_at_delivery,3_hot_run_updates(,|$)/)
    }))
})
