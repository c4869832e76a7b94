import { configDefaults, defineConfig } from "vitest/config"
import SlowFirst from "./test/support/SlowFirst.js"

// *.pg.test.ts files need real concurrency (several connections, two service
// instances on one database, kill -9): they run when DATABASE_URL names a
// Postgres server, as in CI's second pass, and are left out on the embedded one.
const onPostgres = (process.env.DATABASE_URL ?? "").length > 0
// *.solo.pg.test.ts files restart the Postgres server itself, which would cut
// other test files' connections: they run alone, in their own pass
// (`npm run test:solo`, CI's third pass).
const solo = process.env.PTS_SOLO === "1"
const soloFiles = "test/**/*.solo.pg.test.ts"
// Test files at once (see maxWorkers below).
const workers = 4

export default defineConfig({
  test: {
    include: solo ? [soloFiles] : ["test/**/*.test.ts"],
    // Builds dist/ when a source changed: some tests run the shipped JavaScript (see the file);
    // then one migrated embedded database that every test database is loaded from.
    globalSetup: ["test/support/Build.ts", "test/support/PgliteTemplate.ts"],
    // Test files share their worker's module graph (isolate: false): each file
    // no longer imports effect, the platform and the service afresh (CPU per
    // run 634 s -> 375 s on a 2-core machine), and a worker's emptied embedded
    // databases serve the next file too. Before each file, `it.effect` and the
    // rest are put back as @effect/vitest exports them (its `layer()` leaves
    // its own on vitest's shared `it`; test/support/ResetIt.ts says why).
    isolate: false,
    setupFiles: ["test/support/ResetIt.ts"],
    // The default output, then the run's wall time and its slowest files and tests (docs/testing.md).
    reporters: ["default", "./test/support/TimeReport.ts"],
    // The service logs every request: printed for failing tests only, where it helps.
    silent: "passed-only",
    // `npm run test:changed` (vitest --changed) runs the tests importing what changed;
    // these change what every test runs on, so they run everything (vitest's own two first).
    forceRerunTriggers: [
      "**/package.json/**",
      "**/{vitest,vite}.config.*/**",
      "**/migrations/**",
      "**/test/support/{Build,PgliteTemplate}.ts"
    ],
    exclude: [
      ...configDefaults.exclude,
      ...(onPostgres ? [] : ["test/**/*.pg.test.ts"]),
      ...(solo ? [] : [soloFiles])
    ],
    // Generous: a test's work takes several times longer at load 16 than on a
    // quiet machine, and a test must not fail for load (docs/testing.md).
    testTimeout: 120_000,
    // A file's shared service and database start in its beforeAll: generous, so a
    // machine at load 16 still starts them (a timeout there fails every test of the file).
    hookTimeout: 180_000,
    // Each file gets its own database. Twice as many files as cores: many files
    // spend most of their time waiting on real processes, browsers and long
    // polls, and with the import shared a file costs little CPU besides
    // (docs/testing.md: the embedded pass took 212 s with four, 365 s with
    // three, on a quiet 2-core machine).
    maxWorkers: workers,
    // The files that take longest start first, so none trails the run (test/support/SlowFirst.ts).
    sequence: { sequencer: SlowFirst },
    // As many as maxWorkers: with fewer, vitest 3.2's pool (tinypool, files not
    // isolated) ended two runs out of two while their last two files were still
    // running ("Unhandled Rejection: Terminating worker thread", no summary).
    minWorkers: workers
  }
})
