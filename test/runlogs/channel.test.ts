import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { channel } from "../channel/support.js"
import { serverUrl } from "../sdk/support.js"
import { registerWorker } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { readAll, runningRun, step } from "./support.js"

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ stream: "stdout" as const, text: `line ${from + i}` }))

withLayer(layer(), { excludeTestServices: true })("run logs over the worker channel", (it) => {
  it.scoped("a Logs message stores a batch as the REST call does: idempotent per sequence; another worker's run NotFound, an ended run Conflict", () =>
    Effect.gen(function*() {
      const { env, runId, worker } = yield* runningRun
      const baseUrl = yield* serverUrl
      const client = yield* channel(baseUrl, worker.token)
      expect(yield* client.Logs({ runId, sequence: 1, lines: lines(1, 3) })).toEqual({ stored: 3, duplicates: 0, dropped: 0 })
      // Resent after a lost answer, with one more line.
      expect(yield* client.Logs({ runId, sequence: 1, lines: lines(1, 4) })).toEqual({ stored: 1, duplicates: 3, dropped: 0 })
      const { lines: stored } = yield* readAll(runId, env.user.cookie)
      expect(stored.map((l) => l.text)).toEqual(["line 1", "line 2", "line 3", "line 4"])

      const other = yield* registerWorker(env)
      const otherClient = yield* channel(baseUrl, other.token)
      const foreign = yield* Effect.flip(otherClient.Logs({ runId, lines: lines(5, 5) }))
      expect(foreign._tag).toBe("NotFound")
      expect((yield* Effect.flip(client.Logs({ runId: "not-a-run", lines: lines(5, 5) })))._tag).toBe("NotFound")
      expect((yield* step(worker, runId, "complete", { status: "succeeded" })).status).toBe(200)
      const late = yield* Effect.flip(client.Logs({ runId, lines: lines(5, 5) }))
      expect(late._tag).toBe("Conflict")
    }))
})
