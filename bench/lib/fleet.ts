import { createHash, randomUUID } from "node:crypto"
import { execute } from "./database.js"
import type { Worker } from "./setup.js"

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")

/**
 * `n` registered workers of the environment, inserted in bulk (as a fleet
 * that registered over time would be): rows with the hash of a fresh `wkt_`
 * token each, 2,000 per statement. Answers their ids and tokens.
 */
export const insertWorkers = async (databaseUrl: string, environmentId: string, n: number, label: string): Promise<Array<Worker>> => {
  const workers = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), token: `wkt_${label}_bench_${i}_${randomUUID()}` }))
  for (let from = 0; from < workers.length; from += 2000) {
    const slice = workers.slice(from, from + 2000)
    await execute(
      databaseUrl,
      `INSERT INTO workers (id, environment_id, workspace_id, label, token_hash)
       SELECT w.id::uuid, e.id, e.workspace_id, $5 || '-' || w.n, w.hash
       FROM environments e, unnest($2::text[], $3::text[], $4::int[]) AS w(id, hash, n)
       WHERE e.id = $1`,
      [environmentId, slice.map((w) => w.id), slice.map((w) => sha256(w.token)), slice.map((_, i) => from + i), label]
    )
  }
  return workers
}
