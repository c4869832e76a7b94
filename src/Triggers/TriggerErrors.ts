import * as Schema from "effect/Schema"

/** No such trigger: never created, deleted, or (to the repository) gone since it was read. */
export class TriggerNotFound extends Schema.TaggedError<TriggerNotFound>()("TriggerNotFound", { triggerId: Schema.String }) {
  override get message(): string {
    return "trigger not found"
  }
}

/** A trigger with queued, assigned, claimed or running runs cannot be deleted. */
export class TriggerHasActiveRuns extends Schema.TaggedError<TriggerHasActiveRuns>()("TriggerHasActiveRuns", {
  triggerId: Schema.String
}) {
  override get message(): string {
    return "trigger has active runs (queued, assigned, claimed or running)"
  }
}
