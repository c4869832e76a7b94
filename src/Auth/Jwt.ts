import { createHmac, timingSafeEqual } from "node:crypto"

/** HS256 JSON Web Tokens: only what session cookies need (sub, sid, iat, exp). */
export interface Claims {
  readonly sub: string
  readonly sid: string
  readonly iat: number
  readonly exp: number
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString("base64url")
const header = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }))

const mac = (key: string, data: string) => createHmac("sha256", key).update(data).digest()

export const sign = (key: string, claims: Claims): string => {
  const body = `${header}.${b64(JSON.stringify(claims))}`
  return `${body}.${b64(mac(key, body))}`
}

/** The claims of a token with a valid signature that has not expired, else undefined. */
export const verify = (key: string, token: string, nowSeconds: number): Claims | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3 || parts[0] !== header) return undefined
  const [h, p, s] = parts as [string, string, string]
  const expected = mac(key, `${h}.${p}`)
  const given = Buffer.from(s, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Claims
    if (typeof claims.sub !== "string" || typeof claims.sid !== "string" || typeof claims.exp !== "number") {
      return undefined
    }
    return claims.exp > nowSeconds ? claims : undefined
  } catch {
    return undefined
  }
}
