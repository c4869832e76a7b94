import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { readRun, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { configHome, type Agent, waitForOutput, watch } from "./support.js"

const root = path.resolve(import.meta.dirname, "../..")

/** Whether any process of the group `pgid` is still alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A project with the package installed (its bin linked in node_modules/.bin,
 * as `npm install` links it), where `npx pipeline-worker` finds the local bin.
 */
const project = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-worker-npx-"))
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "uses-the-agent", private: true }))
    fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true })
    fs.symlinkSync(path.join(root, "bin", "pipeline-worker.js"), path.join(dir, "node_modules", ".bin", "pipeline-worker"))
    return dir
  }),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** `npx pipeline-worker …` in its own process group; the whole group is killed when the scope closes. */
const startThroughNpx = (args: ReadonlyArray<string>, cwd: string) =>
  Effect.acquireRelease(
    Effect.sync((): Agent => {
      const child = spawn("npx", ["pipeline-worker", ...args], {
        cwd,
        detached: true,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          XDG_CONFIG_HOME: configHome(cwd),
          npm_config_update_notifier: "false"
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      return watch(child)
    }),
    (agent) =>
      Effect.sync(() => {
        if (groupAlive(agent.child.pid!)) process.kill(-agent.child.pid!, "SIGKILL")
      })
  )

withLayer(layer(), { excludeTestServices: true })("pipeline-worker through npx", (it) => {
  it.scoped("SIGTERM to npx's pid: the running command finishes, the agent exits, nothing is left behind", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* project
      const { token, workerId } = yield* registerWorker(env)
      const agent = yield* startThroughNpx(["--url", url, "--token", token], dir)
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/, 120)
      const trigger = yield* createTrigger(env, { name: "finishing", command: "sleep 2; echo finished" })
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (r) => r.status === "running")

      // The pid a user (or a supervisor) has is npx's; npm hands the signal to
      // the shell it started, and the agent below must still stop gracefully.
      agent.child.kill("SIGTERM")
      yield* Effect.promise(() => agent.exited)
      const pgid = agent.child.pid!
      yield* Effect.promise(async () => {
        const deadline = Date.now() + 30_000
        while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      })
      expect(groupAlive(pgid), agent.output()).toBe(false)
      expect(yield* readRun(env, trigger.id, runId)).toMatchObject({ status: "succeeded", shortMessage: "finished", workerId })
      // Over the channel or REST, whichever the service offers.
      expect(agent.output()).toMatch(/stopped (polling|taking runs)/)
    }), 180_000)
})
