import * as Effect from "effect/Effect"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { isUuid } from "../Contract/Domain/Uuids.js"

/**
 * Keyset pagination over UUIDv7 ids (they sort by creation time): the opaque
 * cursor is the last id of the previous page. Rows inserted meanwhile have
 * larger ids, so following `nextCursor` never repeats or skips a row.
 */
// The cursors this service hands out hold lower-case ids.
const isCursorId = (id: string): boolean => isUuid(id) && id === id.toLowerCase()

export const decodeCursor = (cursor: string | undefined): Effect.Effect<string | undefined, ValidationError> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  try {
    const id = Buffer.from(cursor, "base64url").toString("utf8")
    if (isCursorId(id)) return Effect.succeed(id)
  } catch {
    // fall through to the 400
  }
  return Effect.fail(ValidationError.field("cursor", "invalid cursor"))
}

export const encodeCursor = (id: string): string => Buffer.from(id, "utf8").toString("base64url")

/** Given `limit + 1` rows fetched, the page and its `nextCursor`. */
export const page = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  limit: number
): { items: ReadonlyArray<A>; nextCursor: string | null } => {
  const items = rows.slice(0, limit)
  return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]!.id) : null }
}

export const defaultLimit = 50
