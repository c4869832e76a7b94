import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"

/**
 * Readers for the service's environment variables that refuse a bad value in
 * one shape: the error's path is the variable, its message the value and what
 * is allowed (`StartupFailure` prints both). Effect's own primitives name
 * the variable but say little of what is allowed, and `Config.validate`
 * names neither the variable nor the value.
 */

const refusal = (value: string, allowed: string) => `${JSON.stringify(value)} is not allowed; expected ${allowed}`

/** The refusal of `value` for `name`, read other than through `Config`: `allowed` says what would be accepted. */
export const invalid = (name: string, value: string, allowed: string): ConfigError.ConfigError =>
  ConfigError.InvalidData([name], refusal(value, allowed))

/** A variable read as text and turned into `A` by `parse` (undefined: refused, `allowed` says why). */
export const parsed = <A>(name: string, allowed: string, parse: (raw: string) => A | undefined): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const value = parse(raw)
      return value === undefined ? Either.left(invalid(name, raw, allowed)) : Either.right(value)
    })
  )

/** A whole number from `min` (and up to `max`); `unit` names what it counts, for the message. */
export const wholeNumber = (
  name: string,
  options: { readonly min: number; readonly max?: number | undefined; readonly unit?: string | undefined }
) => {
  const range = options.max === undefined ? `≥ ${options.min}` : `from ${options.min} to ${options.max}`
  return parsed(name, `a whole number ${range}${options.unit === undefined ? "" : ` (${options.unit})`}`, (raw) => {
    const text = raw.trim()
    if (!/^[+-]?\d+$/.test(text)) return undefined
    const n = Number(text)
    return Number.isSafeInteger(n) && n >= options.min && (options.max === undefined || n <= options.max) ? n : undefined
  })
}

/** Whether `s` is an absolute http:// or https:// URL. */
export const httpUrl = (s: string): boolean => {
  try {
    const url = new URL(s)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const truthy = ["true", "yes", "on", "1"]
const falsy = ["false", "no", "off", "0"]

/** true/false, as Effect's `Config.boolean` reads them (also yes/no, on/off, 1/0), any case. */
export const boolean = (name: string) =>
  parsed(name, "true or false (or yes/no, on/off, 1/0)", (raw) => {
    const text = raw.trim().toLowerCase()
    return truthy.includes(text) ? true : falsy.includes(text) ? false : undefined
  })

/** One of `values` (any case), answered as written in `values`. */
export const oneOf = <const A extends string>(name: string, values: ReadonlyArray<A>) =>
  parsed(name, `one of ${values.join(", ")}`, (raw) => values.find((v) => v.toLowerCase() === raw.trim().toLowerCase()))

/**
 * Every refusal inside `error` (Effect combines them with And/Or), each as
 * `path: message`; a path-less one is its message alone.
 */
export const describeAll = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...new Set([...describeAll(error.left), ...describeAll(error.right)])]
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported": {
      // A refusal names its variable, and the provider prefixes some with it
      // once more (`Config.string(name)`, not `Config.redacted(name)`): once is enough.
      const path = error.path.filter((segment, i) => segment !== error.path[i - 1])
      return [path.length > 0 ? `${path.join(".")}: ${error.message}` : error.message]
    }
  }
}
