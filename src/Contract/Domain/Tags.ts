import * as Schema from "effect/Schema"

/** The most tags a run carries (its request's and its trigger's defaults together). */
export const maxTags = 10

/** One run tag: 1 to 64 characters of `[A-Za-z0-9_.:-]`, e.g. `deploy:2026-11-27` or `customer.acme`. */
export const Tag = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_.:-]{1,64}$/, {
    message: () => "each tag must be 1 to 64 characters of letters, digits, _ . : and -"
  })
).annotations({ identifier: "Tag", jsonSchema: { type: "string", pattern: "^[A-Za-z0-9_.:-]{1,64}$", maxLength: 64 } })

/** Up to `maxTags` tags, each once. */
export const Tags = Schema.Array(Tag).pipe(
  Schema.filter((tags) => tags.length <= maxTags || `at most ${maxTags} tags`),
  Schema.filter((tags) => new Set(tags).size === tags.length || "each tag at most once")
).annotations({ identifier: "Tags" })
