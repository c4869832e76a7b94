import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startAgent, waitForOutput } from "../cli/support.js"
import { openSse } from "../events/sse.js"
import { serverUrl } from "../sdk/support.js"
import { createTrigger, mintRegistrationToken, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { parseEvents, readAll } from "./support.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-worker-logs-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

// Both streams over 3 s; then a byte that is not UTF-8, a line of 70,000 bytes, and a last line without a newline.
const command = [
  "for i in 1 2 3 4 5 6; do echo \"out $i\"; echo \"err $i\" >&2; sleep 0.5; done",
  "printf 'bad \\377 byte\\n'",
  "head -c 70000 /dev/zero | tr '\\0' a; echo",
  "printf 'no newline at the end'"
].join("; ")

withLayer(layer(), { excludeTestServices: true })("pipeline-worker streams the run's log", (it) => {
  it.scoped("a real command printing to both streams over 3 s: a follower sees its lines before the run ends, all of them in order", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const trigger = yield* createTrigger(env, { name: "chatty", command })
      const agent = yield* startAgent(["--url", url, "--label", "logs"], {
        cwd: dir,
        env: { PIPELINE_REGISTRATION_TOKEN: yield* mintRegistrationToken(env) }
      })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)

      const created = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
      expect(created.status).toBe(201)
      const runId = created.body.id as string
      const follower = yield* openSse(`/api/v1/runs/${runId}/logs?follow=1`, { cookie: env.user.cookie })
      expect(follower.status).toBe(200)

      // Live: the first lines of both streams arrive while the command is still running.
      yield* follower.until((text) => {
        const texts = parseEvents(text).map((e) => e.data.text)
        return texts.includes("out 2") && texts.includes("err 2")
      }, "the first lines of both streams")
      const meanwhile = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
      expect(meanwhile.body.status).toBe("running")
      expect(meanwhile.body.endedAt).toBeNull()
      expect(follower.text()).not.toContain("event: end")

      yield* follower.until((text) => text.includes("event: end"), "the end of the run")
      const events = parseEvents(follower.text())
      expect(events.at(-1)).toMatchObject({ event: "end", data: { status: "succeeded" } })
      const lines = events.filter((e) => e.event === "line").map((e) => e.data)
      expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1))
      const of = (stream: string) => lines.filter((l) => l.stream === stream).map((l) => l.text)
      expect(of("stderr")).toEqual(["err 1", "err 2", "err 3", "err 4", "err 5", "err 6"])
      expect(of("stdout")).toEqual([
        "out 1", "out 2", "out 3", "out 4", "out 5", "out 6",
        "bad \uFFFD byte",
        "a".repeat(64 * 1024),
        "a".repeat(70_000 - 64 * 1024),
        "no newline at the end"
      ])
      // Paging reads the same log, and says nothing more will come.
      const paged = yield* readAll(runId, env.user.cookie)
      expect(paged.lines).toEqual(lines)
      expect(paged.nextAfter).toBeNull()
      // The seed's fields keep their meaning: the first 500 characters of stdout.
      const run = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
      const stdout = ["out 1", "out 2", "out 3", "out 4", "out 5", "out 6", "bad \uFFFD byte", ""].join("\n") + "a".repeat(500)
      expect(run.body.shortMessage).toBe(stdout.slice(0, 500))
      expect(run.body.errorMessage).toBeNull()
      agent.child.kill("SIGTERM")
    }), 90_000)
})
