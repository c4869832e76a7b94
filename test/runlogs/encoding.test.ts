import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AppendLogsPayload, LogLine, LogLineInput, maxLinesPerCall } from "../../src/Contract/RunLogsApi.js"
import { decodeGrown, encodeGrown } from "../../src/RunLogs/RunLogs.js"
import { lineJson } from "../../src/RunLogs/RunLogsHttp.js"

/** The lines' schema as it reads, field by field, without the fast path. */
const Checked = Schema.Struct({
  lines: Schema.Array(LogLineInput).pipe(Schema.minItems(1), Schema.maxItems(maxLinesPerCall)),
  sequence: Schema.optional(Schema.Int)
})
const options = { errors: "all", onExcessProperty: "ignore" } as const
const decodeFast = Schema.decodeUnknownEither(AppendLogsPayload, options)
const decodeChecked = Schema.decodeUnknownEither(Checked, options)

describe("run logs: the hand-written encodings agree with the schemas", () => {
  it("a line's SSE data is the schema's JSON of it, whatever its text", () => {
    const texts = ["plain", "", "quote \" and backslash \\", "tab\tnew\nline\r", "é ✓ 日本 🚀", "\u0001\u001f\u007f", "\u2028\u2029", "\uFFFD", "</script>"]
    for (const [i, text] of texts.entries()) {
      const line = { seq: i + 1, stream: i % 2 === 0 ? "stdout" as const : "stderr" as const, text, at: new Date(Date.UTC(2026, 10, 27, 10, 0, i, 7)) }
      expect(lineJson(line)).toBe(JSON.stringify(Schema.encodeSync(LogLine)(line)))
      expect(JSON.parse(lineJson(line))).toEqual({ ...line, at: line.at.toISOString() })
    }
  })

  it("the payload's lines decode as the field-by-field schema decodes them: the same lines, or a refusal for the same input", () => {
    const line = { stream: "stdout", text: "hello" }
    const inputs: ReadonlyArray<unknown> = [
      { lines: [line] },
      { lines: [line, { stream: "stderr", text: "x", at: "2026-11-27T10:00:00Z" }], sequence: 3 },
      { lines: [{ ...line, at: "2026-11-27" }, { ...line, at: "2026-11-27T10:00:00.123456+02:00" }] },
      // Unknown keys are left out.
      { lines: [{ ...line, colour: "red" }] },
      { lines: [{ ...line, text: "y".repeat(64 * 1024) }] },
      { lines: Array.from({ length: maxLinesPerCall }, () => line) },
      // Refused, each for its own reason.
      { lines: [] },
      { lines: Array.from({ length: maxLinesPerCall + 1 }, () => line) },
      { lines: [{ stream: "stdin", text: "x" }] },
      { lines: [{ stream: "stdout" }] },
      { lines: [{ stream: "stdout", text: 1 }] },
      { lines: [{ ...line, text: "y".repeat(64 * 1024 + 1) }] },
      { lines: [{ ...line, at: "yesterday" }] },
      { lines: [{ ...line, at: "2026-02-30T10:00:00Z" }] },
      { lines: [{ ...line, at: "2026-11-27T10:00:00" }] },
      { lines: [{ ...line, at: null }] },
      { lines: [{ ...line, at: 0 }] },
      { lines: [null] },
      { lines: ["text"] },
      { lines: { 0: line, length: 1 } },
      {}
    ]
    for (const input of inputs) {
      const fast = decodeFast(input)
      const checked = decodeChecked(input)
      expect(Either.isRight(fast), JSON.stringify(input).slice(0, 200)).toBe(Either.isRight(checked))
      if (Either.isRight(fast) && Either.isRight(checked)) {
        expect(fast.right).toEqual(checked.right)
        // Decoded lines are lines of the type side too (the worker channel's client checks its payload with it).
        expect(Schema.is(AppendLogsPayload)(fast.right)).toBe(true)
      }
    }
  })

  it("a NOTIFY names its sender and the runs whose logs grew; a bare id (an instance of before) is one run", () => {
    const ids = ["0192f3a0-0000-7000-8000-000000000001", "0192f3a0-0000-7000-8000-000000000002"]
    expect(decodeGrown(encodeGrown("instance-a", ids))).toEqual({ from: "instance-a", runIds: ids })
    expect(decodeGrown(ids[0]!)).toEqual({ from: undefined, runIds: [ids[0]] })
  })
})
