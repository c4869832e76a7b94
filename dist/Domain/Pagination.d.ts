import * as Effect from "effect/Effect";
import { ValidationError } from "./Errors.js";
export declare const decodeCursor: (cursor: string | undefined) => Effect.Effect<string | undefined, ValidationError>;
export declare const encodeCursor: (id: string) => string;
/** Given `limit + 1` rows fetched, the page and its `nextCursor`. */
export declare const page: <A extends {
    readonly id: string;
}>(rows: ReadonlyArray<A>, limit: number) => {
    items: ReadonlyArray<A>;
    nextCursor: string | null;
};
export declare const defaultLimit = 50;
//# sourceMappingURL=Pagination.d.ts.map