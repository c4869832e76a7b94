import { configDefaults, defineConfig } from "vitest/config"

// *.pg.test.ts files need real concurrency (several connections, two service
// instances on one database, kill -9): they run when DATABASE_URL names a
// Postgres server, as in CI's second pass, and are left out on the embedded one.
const onPostgres = (process.env.DATABASE_URL ?? "").length > 0
// *.solo.pg.test.ts files restart the Postgres server itself, which would cut
// other test files' connections: they run alone, in their own pass
// (`npm run test:solo`, CI's third pass).
const solo = process.env.PTS_SOLO === "1"
const soloFiles = "test/**/*.solo.pg.test.ts"

export default defineConfig({
  test: {
    include: solo ? [soloFiles] : ["test/**/*.test.ts"],
    // Builds dist/ when a source changed: some tests run the shipped JavaScript (see the file).
    globalSetup: ["test/support/Build.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...(onPostgres ? [] : ["test/**/*.pg.test.ts"]),
      ...(solo ? [] : [soloFiles])
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own database; PGlite files are CPU-heavy, so keep the
    // pool small on a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1
  }
})
