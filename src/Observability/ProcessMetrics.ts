import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import cluster from "node:cluster"
import type { Series } from "./Series.js"

/**
 * How service processes of one start (`WEB_CONCURRENCY` > 1) answer a scrape
 * together, over the cluster's IPC channel. The scraped process sends its own
 * series with `gather`; the primary asks every other process to `collect`,
 * and answers `gathered` with their series and those left by processes that
 * ended. In a single process none of this runs.
 */
export type Message =
  | { readonly type: "pts/metrics/gather"; readonly id: number; readonly own: ReadonlyArray<Series> }
  | { readonly type: "pts/metrics/gathered"; readonly id: number; readonly lists: ReadonlyArray<ReadonlyArray<Series>> }
  | { readonly type: "pts/metrics/collect"; readonly id: number }
  | { readonly type: "pts/metrics/collected"; readonly id: number; readonly series: ReadonlyArray<Series> }

export const isMessage = (value: unknown): value is Message =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string" &&
  (value as { type: string }).type.startsWith("pts/metrics/")

let several = false

/**
 * Marks this process as one of several started by the service's own primary
 * (`Processes/Launch`). Not inferred from `cluster.isWorker`: a program that
 * embeds the service may run its own cluster, whose primary would never answer.
 */
export const markShared = (): void => {
  several = true
}

/** Whether this process is one of several (see `markShared`). */
export const shared = (): boolean => several && cluster.isWorker

/** The environment variable the primary gives each service process: its slot, 1..WEB_CONCURRENCY. */
export const slotVariable = "PTS_PROCESS_SLOT"

/**
 * The `process` label of this process's Node.js and process series when it
 * is one of several: its slot (a replacement takes over its predecessor's
 * label, so the label set stays WEB_CONCURRENCY + 1 however often processes
 * restart); none when it serves alone.
 */
export const processLabel = (): string | undefined =>
  shared() ? process.env[slotVariable] ?? String(cluster.worker?.id ?? process.pid) : undefined

// A scrape must answer even if the primary does not: this process's figures are then all it has.
const gatherTimeoutMs = 3_000
let nextId = 0

/**
 * The other processes' series for a scrape (their database-wide gauges left
 * out by them), given this process's own; empty when there is no other.
 */
export const others = (own: ReadonlyArray<Series>): Effect.Effect<ReadonlyArray<ReadonlyArray<Series>>> =>
  !shared()
    ? Effect.succeed([])
    : Effect.async<ReadonlyArray<ReadonlyArray<Series>>>((resume) => {
      const id = ++nextId
      const onMessage = (message: unknown) => {
        if (!isMessage(message) || message.type !== "pts/metrics/gathered" || message.id !== id) return
        done()
        resume(Effect.succeed(message.lists))
      }
      const timer = setTimeout(() => {
        done()
        resume(Effect.as(Effect.logWarning("metrics: the other processes did not answer; this scrape has this process's figures only"), []))
      }, gatherTimeoutMs)
      const done = () => {
        clearTimeout(timer)
        process.removeListener("message", onMessage)
      }
      process.on("message", onMessage)
      process.send!({ type: "pts/metrics/gather", id, own } satisfies Message)
      return Effect.sync(done)
    })

/**
 * Answers the primary's `collect` with `snapshot` (this process's series
 * without database-wide gauges), for as long as the scope is open.
 */
export const answer = (snapshot: Effect.Effect<ReadonlyArray<Series>>) =>
  Effect.gen(function*() {
    if (!shared()) return
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const onMessage = (message: unknown) => {
      if (!isMessage(message) || message.type !== "pts/metrics/collect") return
      runFork(Effect.flatMap(snapshot, (series) =>
        Effect.sync(() => {
          if (process.connected) process.send!({ type: "pts/metrics/collected", id: message.id, series } satisfies Message)
        })))
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("message", onMessage)),
      () => Effect.sync(() => process.removeListener("message", onMessage))
    )
  })
