import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, sleep, startService } from "../support/Process.js"
import { seedPgliteDir } from "../support/TestDatabase.js"
import { readmeBlocks, repoRoot, run } from "./readme.js"

/**
 * The README's five-minute tour, run as written (only the two ports changed)
 * against the service started as the tour starts it and the tour's own
 * webhook receiver; then again after a restart on the same data directory,
 * where the account exists and the tour signs in instead.
 */
describe("README: five-minute tour", () => {
  it("takes a new user from an account to a verified webhook, and again after a restart", async () => {
    const [servicePart, tour] = readmeBlocks("Five-minute tour", "sh")
    expect(servicePart).toContain("WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start")
    expect(servicePart).toContain("WEBHOOK_SECRET=tour-webhook-secret-0123 node examples/webhook-receiver.mjs")
    expect(tour).toBeDefined()

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-tour-"))
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "pts-tour-cwd-"))
    // The tour's service keeps its data on the embedded database, as `npm start` does.
    const serviceEnv = { DATA_DIR: dataDir, DATABASE_URL: "", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" }

    const receiverPort = await freePort()
    const receiver = spawn(process.execPath, [path.join(repoRoot, "examples/webhook-receiver.mjs")], {
      env: { ...process.env, PORT: String(receiverPort), WEBHOOK_SECRET: "tour-webhook-secret-0123" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let received = ""
    receiver.stdout.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")))
    try {
      let service = await startService(serviceEnv)
      const port = service.port
      const script = tour!
        .replaceAll("localhost:3000", `localhost:${port}`)
        .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)

      for (const pass of ["first", "after a restart"]) {
        const before = received
        const result = await run("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: work, timeoutMs: 60_000 })
        expect(result.stderr, pass).toBe("")
        expect(result.code, `${pass}\n${result.stdout}\n${service.output()}`).toBe(0)
        expect(result.stdout).toContain(`{"status":"succeeded","durationMs":`)
        expect(result.stdout).toContain(`"shortMessage":"hello\\n","costUsd":"0.0042"}`)
        expect(result.stdout).toContain(`{"outcome":"delivered","statusCode":204,"attemptCount":1}`)
        expect(result.stdout).toMatch(/^run\.requested$/m)
        expect(result.stdout).toContain(`{"status":"cancelled","faultClass":"none"}`)
        // Day-2: the webhook sent again, the worker drained, then revoked and refused.
        expect(result.stdout).toMatch(/"trigger":"manual"/)
        expect(result.stdout).toMatch(/^draining$/m)
        expect(result.stdout).toContain("revoked: 204\nits token now: 401\n")
        const deadline = Date.now() + 5_000
        while (!/verified \S+ succeeded/.test(received.slice(before.length)) && Date.now() < deadline) await sleep(50)
        expect(received.slice(before.length)).toMatch(/verified [0-9a-f-]{36} succeeded durationMs=\d+ costUsd=0.0042/)
        // The tour's redelivery reaches the receiver, which says so rather than nothing.
        while (!/ again: a redelivery/.test(received.slice(before.length)) && Date.now() < deadline + 5_000) await sleep(50)
        expect(received.slice(before.length)).toMatch(/verified [0-9a-f-]{36} succeeded again: a redelivery of a run already handled/)
        expect(received).not.toContain("REJECTED")

        if (pass === "first") {
          await service.stop()
          service = await startService(serviceEnv, { port })
        }
      }
      await service.stop()
    } finally {
      receiver.kill("SIGKILL")
      fs.rmSync(work, { recursive: true, force: true })
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)

  it("against a service started without WEBHOOK_ALLOW_PRIVATE_NETWORKS it stops at the trigger and says why", async () => {
    const [, tour] = readmeBlocks("Five-minute tour", "sh")
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-tour-private-"))
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "pts-tour-private-cwd-"))
    // Migrated beforehand: a first start is the test above's.
    await seedPgliteDir(path.join(dataDir, "pg"))
    // As the README's first line would start it without the variable: webhooks to this machine are refused.
    const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: "", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" })
    try {
      const script = tour!.replaceAll("localhost:3000", `localhost:${service.port}`)
      const reason = /trigger not created: validation failed: webhookUrl must not point to a loopback, private.*WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/
      // Run as a script (errexit): it ends there, not 0.
      const scripted = await run("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: work, timeoutMs: 60_000 })
      expect(scripted.code, scripted.stdout).not.toBe(0)
      expect(scripted.stderr).toMatch(reason)
      expect(scripted.stdout).not.toContain("revoked:")
      // Pasted into a shell (no errexit): the reason is printed all the same.
      const pasted = await run("bash", ["-c", script], { cwd: work, timeoutMs: 60_000 })
      expect(pasted.stderr).toMatch(reason)
    } finally {
      await service.stop()
      fs.rmSync(work, { recursive: true, force: true })
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("leaves no untracked file in a checkout: the cookie jar is ignored", async () => {
    const ignored = await run("git", ["check-ignore", "-q", "alice.jar"], { cwd: repoRoot, timeoutMs: 10_000 })
    expect(ignored.code).toBe(0)
  })
})
