import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** One parsed `event: run` of the SSE stream. */
export interface SseRun {
  readonly id: string
  readonly run: { readonly id: string; readonly status: string; readonly environmentId: string; readonly [k: string]: unknown }
}

/** The `event: run` blocks of an SSE text, in order. */
export const parseRuns = (text: string): ReadonlyArray<SseRun> =>
  text.split("\n\n").flatMap((block) => {
    const lines = block.split("\n")
    if (!lines.includes("event: run")) return []
    const id = lines.find((l) => l.startsWith("id: "))!.slice(4)
    const data = lines.find((l) => l.startsWith("data: "))!.slice(6)
    return [{ id, run: JSON.parse(data) }]
  })

// Real time: the stream is read by a fiber of its own.
const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 25)))

/**
 * Opens `GET path` as a raw SSE connection (scoped: closed with the scope)
 * and collects its text; `until` waits (real time, ~15 s at most) until the
 * text so far satisfies a condition.
 */
export const openSse = (path: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    let text = ""
    let ended = false
    yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.runForEach((chunk) => Effect.sync(() => { text += chunk })),
      Effect.ensuring(Effect.sync(() => { ended = true })),
      Effect.ignore,
      Effect.forkScoped
    )
    const until = (check: (text: string) => boolean, what = "condition") =>
      Effect.gen(function*() {
        for (let i = 0; i < 600; i++) {
          if (check(text)) return text
          yield* pause
        }
        return yield* Effect.dieMessage(`SSE: ${what} not reached; got: ${text}`)
      })
    return {
      status: response.status,
      headers: response.headers,
      text: () => text,
      ended: () => ended,
      until,
      runs: () => parseRuns(text)
    }
  })
