import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The files that take 20-150 s each (real processes, browsers, npm installs,
 * outages, fuzzing), from the slowest-files report CI prints
 * (`TimeReport`). On a fresh clone vitest has no timings of its own and
 * starts the largest files first; one of these starting last would trail the
 * run by its whole length while the other workers sit idle. So they start
 * first, in this order; every other file follows in vitest's own order (which,
 * once it has timings, is the slowest first as well).
 */
export const slowFiles = [
  "test/reliability/fuzz.test.ts",
  "test/processes/cluster.pg.test.ts",
  "test/reliability/crash.pg.test.ts",
  "test/cli/cli.test.ts",
  "test/processes/startup.test.ts",
  "test/readme/tour.test.ts",
  "test/channel/instances.pg.test.ts",
  "test/web/journey.browser.test.ts",
  "test/package/pack.test.ts",
  "test/reliability/restart-grace.test.ts",
  "test/reliability/restart-grace.pg.test.ts",
  "test/setup/data-dir-lock.test.ts",
  "test/setup/shared-database.pg.test.ts",
  "test/channel/sdk.test.ts",
  "test/web/dashboard.browser.test.ts",
  "test/package/worker-package.test.ts",
  "test/scheduler/worker-protocol.test.ts",
  "test/scheduler/supervision.test.ts",
  "test/embedding/example.test.ts",
  "test/readme/embedding-snippet.test.ts"
]

export default class SlowFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const base = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const at = slowFiles.findIndex((file) => spec.moduleId.endsWith(file))
      return at === -1 ? slowFiles.length : at
    }
    // Array.prototype.sort is stable: files of equal rank keep vitest's order.
    return [...base].sort((a, b) => rank(a) - rank(b))
  }
}
