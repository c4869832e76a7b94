/**
 * Schema failures in words a caller can act on, each naming its field:
 * `password must be at least 8 characters`, `schedule must be an object or null`.
 *
 * The HTTP builder hands over the issues already flattened by Effect's
 * `ArrayFormatter` (`{path, message}`), so the wording works on those:
 *
 * - A message annotation on a schema is kept. When it is a predicate
 *   (`must …`, `is …`) the field's path is put in front of it; a sentence
 *   that already names its subject (`cron must be …`) is kept as it is.
 * - `is missing` becomes `<field> is required`, `is unexpected` becomes
 *   `<field> is not allowed`.
 * - `Expected <type>, actual <value>` becomes `<field> must be <type in words>`.
 *   The value is never repeated: it may be a password.
 * - An optional or nullable field fails as a union, one issue per member
 *   (`Expected undefined …`, `Expected null …`, and the real reason). The
 *   `undefined` member is never something JSON can send and is dropped; when
 *   the field has a more specific reason (its own message, or a nested field)
 *   the bare `Expected <type>` members are dropped too; otherwise they are
 *   joined into one `must be a string or null`.
 *
 * Issues are grouped by their first path element (`fieldErrors`); those
 * about the whole body go to `formErrors`, as the contract's error format says.
 */

/** One flattened schema issue, as `ParseResult.ArrayFormatter` produces it. */
export interface FlatIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

export interface WordedIssues {
  readonly fieldErrors: Record<string, Array<string>>
  readonly formErrors: Array<string>
}

const expected = /^Expected ([\s\S]+?), actual [\s\S]*$/

/** `["schedule", "cron"]` → `schedule.cron`; `["runs", 1]` → `runs[1]`. */
export const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key, i) => {
    if (typeof key === "number") return `${text}[${key}]`
    const name = String(key)
    return i === 0 ? name : `${text}.${name}`
  }, "")

const literal = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$/

/** Effect's name for an expected type (`string`, `"a" | "b"`, `{ readonly … }`) in words. */
export const typeInWords = (type: string): string => {
  const simple: Record<string, string> = {
    string: "a string",
    number: "a number",
    boolean: "true or false",
    int: "an integer",
    null: "null",
    object: "an object",
    NumberFromString: "a number",
    BooleanFromString: "true or false",
    Date: "a date",
    DateFromSelf: "a date",
    UUID: "a UUID",
    "a Universally Unique Identifier": "a UUID"
  }
  if (Object.hasOwn(simple, type)) return simple[type]!
  const members = type.split(" | ")
  if (members.length > 1 && members.every((m) => literal.test(m))) return `one of ${members.join(", ")}`
  if (literal.test(type)) return type
  if (type.startsWith("{") || /^[A-Z]\w*$/.test(type)) return "an object"
  if (/^(?:ReadonlyArray<|Array<|readonly \[)/.test(type)) return "an array"
  return type
}

const joinAlternatives = (words: ReadonlyArray<string>): string =>
  words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`

const isPredicate = (message: string) => /^(?:must|is|are|should|cannot|may)\b/.test(message)

/** One message about one field as a sentence naming it: a predicate (`must …`) gets the field in front. */
export const aboutField = (field: string, message: string): string =>
  isPredicate(message) ? `${field} ${message}` : message

/** One field's issues (all under the same first path element) as sentences. */
const wordField = (issues: ReadonlyArray<FlatIssue>): Array<string> => {
  const relevant = issues.filter((issue) => !/^Expected undefined, actual /.test(issue.message))
  const kept = relevant.length > 0 ? relevant : issues
  const byPath = new Map<string, Array<FlatIssue>>()
  for (const issue of kept) {
    const key = pathText(issue.path)
    byPath.set(key, [...byPath.get(key) ?? [], issue])
  }
  const deepest = Math.max(...kept.map((issue) => issue.path.length))
  const sentences: Array<string> = []
  for (const [where, group] of byPath) {
    const types = group.flatMap((issue) => {
      const m = expected.exec(issue.message)
      return m === null ? [] : [typeInWords(m[1]!)]
    })
    const own = group.filter((issue) => !expected.test(issue.message))
    for (const issue of own) {
      if (issue.message === "is missing") sentences.push(`${where} is required`)
      else if (issue.message === "is unexpected") sentences.push(`${where} is not allowed`)
      else sentences.push(where === "" ? issue.message : aboutField(where, issue.message))
    }
    // A union member's bare "Expected …" says nothing when a nested field or a message gives the reason.
    const explained = own.length > 0 || group[0]!.path.length < deepest
    if (types.length > 0 && !explained) {
      const words = joinAlternatives([...new Set(types)])
      sentences.push(`${where === "" ? "the request body" : where} must be ${words}`)
    }
  }
  return [...new Set(sentences)]
}

/** Flattened schema issues as the contract's `{fieldErrors, formErrors}`, in words. */
export const wordIssues = (issues: ReadonlyArray<FlatIssue>): WordedIssues => {
  const fields = new Map<string, Array<FlatIssue>>()
  const whole: Array<FlatIssue> = []
  for (const issue of issues) {
    const head = issue.path[0]
    if (head === undefined) whole.push(issue)
    else fields.set(String(head), [...fields.get(String(head)) ?? [], issue])
  }
  const fieldErrors: Record<string, Array<string>> = {}
  for (const [field, group] of fields) fieldErrors[field] = wordField(group)
  return { fieldErrors, formErrors: whole.length === 0 ? [] : wordField(whole) }
}
