import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own database; PGlite files are CPU-heavy, so keep the
    // pool small on a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1
  }
})
