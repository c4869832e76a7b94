import { describe, expect, it } from "@effect/vitest"
import type { ChannelClient } from "../../src/WorkerSdk/Channel.js"
import * as SlotLedger from "../../src/WorkerSdk/SlotLedger.js"

// The ledger only compares clients by identity.
const clientA = {} as ChannelClient
const clientB = {} as ChannelClient

describe("SlotLedger: which slots go back with a complete", () => {
  it("a run pushed and completed on the same subscription gives its slot back with the complete, and not again at its end", () => {
    const ledger = SlotLedger.make()
    ledger.subscribed(clientA)
    ledger.pushed("r1")
    ledger.pushed("r2")
    const back = ledger.returning(clientA, ["r1", "r2", "unknown"])
    expect(back.runIds).toEqual(["r1", "r2"])
    ledger.returned(back.token, back.runIds)
    expect(ledger.needsGrant("r1")).toBe(false)
    expect(ledger.needsGrant("r2")).toBe(false)
  })

  it("a complete that was not answered gives nothing back: the run's end grants its slot", () => {
    const ledger = SlotLedger.make()
    ledger.subscribed(clientA)
    ledger.pushed("r1")
    ledger.returning(clientA, ["r1"])
    expect(ledger.needsGrant("r1")).toBe(true)
  })

  it("a complete on another connection carries no slot of the open subscription's runs", () => {
    const ledger = SlotLedger.make()
    ledger.subscribed(clientA)
    ledger.pushed("r1")
    expect(ledger.returning(clientB, ["r1"]).runIds).toEqual([])
    expect(ledger.needsGrant("r1")).toBe(true)
  })

  it("a slot given back to a subscription that ended is granted again to the one open now (which counted the run busy)", () => {
    const ledger = SlotLedger.make()
    ledger.subscribed(clientA)
    ledger.pushed("r1")
    const back = ledger.returning(clientA, ["r1"])
    ledger.returned(back.token, back.runIds)
    ledger.unsubscribed()
    ledger.subscribed(clientB)
    expect(ledger.needsGrant("r1")).toBe(true)
  })

  it("between subscriptions nothing is granted (the next subscription counts the free slots), and an old push is not carried by a new complete", () => {
    const ledger = SlotLedger.make()
    ledger.subscribed(clientA)
    ledger.pushed("r1")
    ledger.unsubscribed()
    expect(ledger.returning(clientA, ["r1"]).runIds).toEqual([])
    expect(ledger.needsGrant("r1")).toBe(false)
    ledger.subscribed(clientB)
    ledger.pushed("r2")
    ledger.unsubscribed()
    ledger.subscribed(clientB)
    expect(ledger.returning(clientB, ["r2"]).runIds).toEqual([])
    expect(ledger.needsGrant("r2")).toBe(true)
  })
})
