import * as Schema from "effect/Schema"

/** No such key in the environment (deleted already, or another environment's). */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", { keyId: Schema.String }) {
  override get message(): string {
    return "API key not found"
  }
}
