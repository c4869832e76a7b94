// A webhook receiver that verifies the service's signature, for the README's
// tour and as a starting point for your own:
//
//   WEBHOOK_SECRET=<the trigger's webhookSecret> node examples/webhook-receiver.mjs
//
// It listens on http://127.0.0.1:4000/hook (PORT changes the port) and prints
// one line per delivery: `verified <runId> <status> …`, `verified <runId> <status> again: a
// redelivery …` for a run it has already handled, or `REJECTED …`.
// Plain Node.js, no dependencies: copy it anywhere.
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

const secret = process.env.WEBHOOK_SECRET
if (!secret) {
  console.error("set WEBHOOK_SECRET to the trigger's webhookSecret")
  process.exit(2)
}
const port = Number(process.env.PORT ?? 4000)
const seen = new Set() // a delivery can arrive twice (at-least-once): de-duplicate by runId

createServer((req, res) => {
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    // Verify over the raw body bytes, never a re-serialised object, in constant time.
    const raw = Buffer.concat(chunks)
    const expected = Buffer.from("sha256=" + createHmac("sha256", secret).update(raw).digest("hex"))
    const given = Buffer.from(String(req.headers["x-service-signature"] ?? ""))
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      console.log(`REJECTED ${req.method} ${req.url}: bad signature`)
      res.writeHead(401).end("bad signature") // a 4xx is final: the service does not retry it
      return
    }
    const event = JSON.parse(raw.toString("utf8"))
    if (!seen.has(event.runId)) {
      seen.add(event.runId)
      console.log(`verified ${event.runId} ${event.status} durationMs=${event.durationMs} costUsd=${event.costUsd} shortMessage=${JSON.stringify(event.shortMessage)}`)
    } else {
      // Answered 204 all the same: the sender wants to know it arrived, and handling it twice is what de-duplication avoids.
      console.log(`verified ${event.runId} ${event.status} again: a redelivery of a run already handled, not handled twice`)
    }
    res.writeHead(204).end() // answer fast; do slow work after answering
  })
}).listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}/hook`))
