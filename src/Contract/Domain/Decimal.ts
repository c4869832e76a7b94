/**
 * Money is decimal text, never a float. Postgres `numeric` does the exact
 * arithmetic; this only writes its output canonically ("0.10000000" → "0.1").
 */
export const canonical = (value: string): string => {
  if (!value.includes(".")) return value
  const trimmed = value.replace(/0+$/, "").replace(/\.$/, "")
  return trimmed === "" || trimmed === "-" ? "0" : trimmed
}

export const canonicalOrNull = (value: string | null | undefined): string | null =>
  value === null || value === undefined ? null : canonical(value)

/** The contract's accepted form for `costUsd`. */
export const costPattern = /^\d{1,12}(\.\d{1,8})?$/
