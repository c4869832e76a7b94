import * as Effect from "effect/Effect"
import cluster, { type Worker } from "node:cluster"
import * as NodeMetrics from "../Observability/NodeMetrics.js"
import * as ProcessMetrics from "../Observability/ProcessMetrics.js"
import * as Series from "../Observability/Series.js"

// A process that does not answer in this long is left out of the scrape (it may be busy starting or stopping).
const collectTimeoutMs = 2_000

/**
 * The primary's half of a scrape (see `ProcessMetrics`): asks every other
 * process for its series and hands them to the scraped one. It keeps each
 * process's latest series; when a process ends, its counts stay in the
 * service's totals, so counters never go down when a process is replaced.
 */
export const broker = Effect.gen(function*() {
  const latest = new Map<number, ReadonlyArray<Series.Series>>()
  let retired: ReadonlyArray<Series.Series> = []
  let nextId = 0

  const collect = (worker: Worker) =>
    new Promise<ReadonlyArray<Series.Series> | undefined>((resolve) => {
      const id = ++nextId
      const onMessage = (message: unknown) => {
        if (!ProcessMetrics.isMessage(message) || message.type !== "pts/metrics/collected" || message.id !== id) return
        done(message.series)
      }
      const timer = setTimeout(() => done(undefined), collectTimeoutMs)
      const done = (series: ReadonlyArray<Series.Series> | undefined) => {
        clearTimeout(timer)
        worker.removeListener("message", onMessage)
        if (series !== undefined) latest.set(worker.id, series)
        resolve(series)
      }
      worker.on("message", onMessage)
      try {
        worker.send({ type: "pts/metrics/collect", id } satisfies ProcessMetrics.Message)
      } catch {
        done(undefined)
      }
    })

  const onMessage = (worker: Worker, message: unknown) => {
    if (!ProcessMetrics.isMessage(message) || message.type !== "pts/metrics/gather") return
    latest.set(worker.id, message.own)
    const others = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w !== worker && w.isConnected())
    // The primary is a process of the instance too: its own Node.js and process series, labelled as such.
    const primary = Effect.runPromise(NodeMetrics.series("primary"))
    void Promise.all([primary, ...others.map(collect)]).then((lists) => {
      const answer = [...lists.filter((l): l is ReadonlyArray<Series.Series> => l !== undefined), retired]
      if (worker.isConnected()) worker.send({ type: "pts/metrics/gathered", id: message.id, lists: answer } satisfies ProcessMetrics.Message)
    })
  }
  const onExit = (worker: Worker) => {
    const last = latest.get(worker.id)
    latest.delete(worker.id)
    if (last !== undefined) retired = Series.merge([retired, Series.cumulative(last)])
  }

  yield* NodeMetrics.start
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      cluster.on("message", onMessage)
      cluster.on("exit", onExit)
    }),
    () =>
      Effect.sync(() => {
        cluster.removeListener("message", onMessage)
        cluster.removeListener("exit", onExit)
      })
  )
})
