import * as Schema from "effect/Schema"

/** No such worker in the workspace (or it was revoked meanwhile). */
export class WorkerNotFound extends Schema.TaggedError<WorkerNotFound>()("WorkerNotFound", { workerId: Schema.String }) {
  override get message(): string {
    return "worker not found"
  }
}

/** The registration token is unknown, of the wrong kind, or was used already. */
export class InvalidRegistrationToken extends Schema.TaggedError<InvalidRegistrationToken>()("InvalidRegistrationToken", {}) {
  override get message(): string {
    return "invalid or already used registration token"
  }
}
