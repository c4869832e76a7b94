/**
 * The `Schema.Class` constructor option for values built from our own rows:
 * skip the constructor's validation. Each column was already decoded by the
 * statement's row schema (`SqlSchema` with a row `Schema.Struct`), and the
 * response encoder checks the shape again on the way out; validating at
 * construction as well cost about 5 % of the CPU of a `GET /workers/me`.
 */
export const rowsAreValid = { disableValidation: true } as const
