/**
 * The webhook outbox. A terminal transition writes one `webhook_outbox` row
 * in its own statement (see `RunStore/SqlRunStore`): the run id, trigger id,
 * and the URL and sealed secret the run snapshotted when it was created. The
 * body is not stored: it is rendered from the terminal run when the row is
 * leased (`DeliveriesRepo.lease`) or handed to this instance's delivery loop
 * (`Webhooks/Handoff`), and a terminal run's reported fields never change, so
 * every attempt sends, and signs, the same bytes. A row nobody was handed is
 * announced on `outboxChannel` for any instance's loop to lease; the run
 * store names the channel, as it writes it.
 */
export { outboxChannel } from "../RunStore/RunStore.js"
