import * as Schema from "effect/Schema"
import { rowsAreValid } from "../Db/Rows.js"
import { Worker, WorkerStatus } from "../Contract/WorkersApi.js"

/** A `workers` row with its status derived in SQL (see `WorkersRepo`), decoded into the API's `Worker`. */
export const WorkerRow = Schema.Struct({
  id: Schema.String,
  environment_id: Schema.String,
  workspace_id: Schema.String,
  label: Schema.String,
  status: WorkerStatus,
  last_seen_at: Schema.DateFromSelf,
  created_at: Schema.DateFromSelf
}).pipe(
  Schema.transform(Schema.instanceOf(Worker), {
    strict: true,
    decode: (row) =>
      new Worker({
        id: row.id,
        environmentId: row.environment_id,
        workspaceId: row.workspace_id,
        label: row.label,
        status: row.status,
        lastSeenAt: row.last_seen_at,
        createdAt: row.created_at
      }, rowsAreValid),
    encode: (worker) => ({
      id: worker.id,
      environment_id: worker.environmentId,
      workspace_id: worker.workspaceId,
      label: worker.label,
      status: worker.status,
      last_seen_at: worker.lastSeenAt,
      created_at: worker.createdAt
    })
  })
)
