import { configDefaults, defineConfig } from "vitest/config"

// Files named *.pg.test.ts need real concurrency (several connections, two
// service instances on one database): they run when DATABASE_URL names a
// Postgres server, as in CI's second pass, and are left out on the embedded one.
const onPostgres = (process.env.DATABASE_URL ?? "").length > 0

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: onPostgres ? configDefaults.exclude : [...configDefaults.exclude, "test/**/*.pg.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own database; PGlite files are CPU-heavy, so keep the
    // pool small on a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1
  }
})
