/**
 * Loaded into the service process by the bench only (`--import`, with
 * `--expose-gc`): on a "heap" message over the IPC channel it runs a full GC
 * and answers the heap in use. RSS after a burst of requests says how much
 * heap V8 keeps around, not what the service holds; this says the latter.
 */
declare const gc: (() => void) | undefined

process.on("message", (message) => {
  if (message !== "heap" || typeof gc !== "function") return
  gc()
  process.send?.({ heapUsedMb: Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10 })
})
// The channel must not keep the service alive at shutdown.
process.channel?.unref()
