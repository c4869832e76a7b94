import { describe, expect, it } from "@effect/vitest"
import * as TrustedTokens from "../../src/Auth/TrustedTokens.js"

describe("TrustedTokens", () => {
  it("trusts a verified token for the window; once due, one caller re-verifies while the others still trust it", () => {
    const tokens = TrustedTokens.make<string>(1000)
    expect(tokens.trusted("h1", 0)).toBeUndefined()
    tokens.remember("h1", "key-1", 0)
    expect(tokens.trusted("h1", 999)).toBe("key-1")
    // Due: this caller gets nothing and asks the database...
    expect(tokens.trusted("h1", 1000)).toBeUndefined()
    // ...while calls arriving meanwhile go on trusting it.
    expect(tokens.trusted("h1", 1001)).toBe("key-1")
    tokens.forget("h1")
    expect(tokens.trusted("h1", 1002)).toBeUndefined()
  })

  it("forgetWhere drops every token with a matching value (a deleted key, whatever token hash it had)", () => {
    const tokens = TrustedTokens.make<{ keyId: string }>(1000)
    tokens.remember("a", { keyId: "k1" }, 0)
    tokens.remember("b", { keyId: "k2" }, 0)
    tokens.forgetWhere((v) => v.keyId === "k1")
    expect(tokens.trusted("a", 1)).toBeUndefined()
    expect(tokens.trusted("b", 1)).toEqual({ keyId: "k2" })
  })

  it("at capacity, expired entries make room; fresh ones stay", () => {
    const tokens = TrustedTokens.make<number>(1000, 2)
    tokens.remember("old", 1, 0)
    tokens.remember("fresh", 2, 1500)
    tokens.remember("new", 3, 1600)
    expect(tokens.trusted("fresh", 1700)).toBe(2)
    expect(tokens.trusted("new", 1700)).toBe(3)
    // "old" was dropped to make room, not merely due.
    expect(tokens.trusted("old", 1700)).toBeUndefined()
    expect(tokens.trusted("old", 1701)).toBeUndefined()
  })
})
