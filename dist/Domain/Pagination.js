import * as Effect from "effect/Effect";
import { ValidationError } from "./Errors.js";
/**
 * Keyset pagination over UUIDv7 ids (they sort by creation time): the opaque
 * cursor is the last id of the previous page. Rows inserted meanwhile have
 * larger ids, so following `nextCursor` never repeats or skips a row.
 */
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const decodeCursor = (cursor) => {
    if (cursor === undefined)
        return Effect.succeed(undefined);
    try {
        const id = Buffer.from(cursor, "base64url").toString("utf8");
        if (uuidPattern.test(id))
            return Effect.succeed(id);
    }
    catch {
        // fall through to the 400
    }
    return Effect.fail(ValidationError.field("cursor", "invalid cursor"));
};
export const encodeCursor = (id) => Buffer.from(id, "utf8").toString("base64url");
/** Given `limit + 1` rows fetched, the page and its `nextCursor`. */
export const page = (rows, limit) => {
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1].id) : null };
};
export const defaultLimit = 50;
//# sourceMappingURL=Pagination.js.map