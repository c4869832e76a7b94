#!/usr/bin/env node
// The worker agent, compiled to dist/ (`npm ci` and `npm pack` build it). It runs
// in this very process: a signal sent to this pid reaches its graceful shutdown.

// `npx pipeline-worker` (and `npm exec`) start this file through `sh -c`. npm
// passes SIGTERM/SIGINT on to that shell, which dies of it without passing it
// on, and this process would be left running under pid 1 with its jobs. So,
// when npm started us and the shell between us goes away, stop as if signalled.
if (process.env.npm_command !== undefined) {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    process.kill(process.pid, "SIGTERM")
  }, 200)
  watch.unref()
}

// Imported after the watch is set: the agent's module does not finish evaluating while it runs.
await import("../dist/WorkerAgent/Cli.js")
