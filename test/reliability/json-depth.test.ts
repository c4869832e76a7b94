import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { nestsDeeperThan } from "../../src/Http/JsonBody.js"

/** The plain definition: every character looked at, strings and escapes skipped. */
const reference = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === "\"") inString = false
    } else if (c === "\"") inString = true
    else if (c === "[" || c === "{") {
      if (++depth > limit) return true
    } else if (c === "]" || c === "}") depth--
  }
  return false
}

describe("the JSON nesting check", () => {
  it("agrees with the character-by-character definition on any text (quotes, escapes, brackets, unterminated strings)", () => {
    const pieces = fc.constantFrom("[", "]", "{", "}", "\"", "\\", "\\\\", "\\\"", "a", ",", ":", " ")
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 200 }).map((p) => p.join("")), fc.integer({ min: 0, max: 6 }), (text, limit) => {
        expect(nestsDeeperThan(text, limit)).toBe(reference(text, limit))
      }),
      { numRuns: 5000 }
    )
  })

  it("finds deep nesting after long strings, and none inside them", () => {
    const text = (s: string) => `{"lines":[{"text":${JSON.stringify(s)}}]}`
    expect(nestsDeeperThan(text("[[[[[[[[[[ \\\" {{{{{{{{"), 3)).toBe(false)
    expect(nestsDeeperThan(`${text("x".repeat(100_000))}`.replace("}]}", "}, [[[[[[]]]]]]]}"), 5)).toBe(true)
    expect(nestsDeeperThan("[".repeat(65), 64)).toBe(true)
    expect(nestsDeeperThan("[".repeat(64), 64)).toBe(false)
  })
})
