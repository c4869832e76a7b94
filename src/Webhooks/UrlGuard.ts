import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as dns from "node:dns"
import * as net from "node:net"
import { AppConfig } from "../Config/AppConfig.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"

/**
 * SSRF guard for webhook URLs. A webhook URL is chosen by a tenant, and the
 * service POSTs to it from inside our network, so it must not reach loopback,
 * private, link-local, CGNAT, multicast or otherwise non-public addresses.
 *
 * The check runs twice: when the URL is saved (a 400 for the user) and when a
 * delivery connects (the `lookup` of the delivery agent), against the address
 * actually connected to, so a DNS name that answers a public address at save
 * time and a private one later (DNS rebinding) is still refused.
 */

const blockedV4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, including 255.255.255.255 broadcast
]

// Only global unicast (2000::/3) is public; inside it these are not.
const blockedV6InGlobal: ReadonlyArray<readonly [string, number]> = [
  ["2001::", 32], // Teredo
  ["2001:2::", 48], // benchmarking
  ["2001:10::", 28], // ORCHID
  ["2001:20::", 28], // ORCHIDv2
  ["2001:db8::", 32], // documentation
  ["3fff::", 20] // documentation
]

const v4List = new net.BlockList()
for (const [prefix, bits] of blockedV4) v4List.addSubnet(prefix, bits, "ipv4")
const v6List = new net.BlockList()
for (const [prefix, bits] of blockedV6InGlobal) v6List.addSubnet(prefix, bits, "ipv6")
const globalUnicast = new net.BlockList()
globalUnicast.addSubnet("2000::", 3, "ipv6")

/** The 8 hextets of an IPv6 address (with `::` and a dotted IPv4 tail expanded). */
const hextets = (address: string): Array<number> | undefined => {
  let text = address.toLowerCase()
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const o = dotted[1]!.split(".").map(Number)
    text = text.slice(0, dotted.index) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`
  }
  const [head, tail] = text.split("::") as [string, string | undefined]
  const parse = (s: string) => s.length === 0 ? [] : s.split(":").map((h) => parseInt(h, 16))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  const fill = tail === undefined ? 0 : 8 - left.length - right.length
  const out = [...left, ...Array<number>(Math.max(fill, 0)).fill(0), ...right]
  return out.length === 8 && out.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? out : undefined
}

const v4FromHextets = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`

/**
 * True when the literal IP address is not a public unicast address. IPv6 forms
 * that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) are judged by the embedded IPv4 address. Anything that does
 * not parse is treated as blocked.
 */
export const isBlockedAddress = (address: string): boolean => {
  const family = net.isIP(address)
  if (family === 4) return v4List.check(address, "ipv4")
  if (family !== 6) return true
  const h = hextets(address)
  if (h === undefined) return true
  const [a, b, c, d, e, f, g, i] = h as [number, number, number, number, number, number, number, number]
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible; also covers :: and ::1)
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0xffff || f === 0)) {
    if (f === 0 && g === 0 && i <= 1) return true
    return v4List.check(v4FromHextets(g, i), "ipv4")
  }
  // NAT64 well-known prefix 64:ff9b::/96
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) {
    return v4List.check(v4FromHextets(g, i), "ipv4")
  }
  // 6to4 2002:AABB:CCDD::/48
  if (a === 0x2002) return v4List.check(v4FromHextets(b, c), "ipv4")
  const normal = h.map((n) => n.toString(16)).join(":")
  // Outside 2000::/3 everything is special: ULA fc00::/7, link-local fe80::/10,
  // site-local, multicast ff00::/8, discard 100::/64, NAT64 local-use, ...
  if (!globalUnicast.check(normal, "ipv6")) return true
  return v6List.check(normal, "ipv6")
}

/** `[::1]` → `::1`: the WHATWG URL keeps IPv6 hosts bracketed. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

const isLocalName = (host: string): boolean => {
  const name = host.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost")
}

export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS"
  constructor(readonly host: string) {
    super(`webhook host ${host} resolves to a non-public address`)
  }
}

/**
 * A `dns.lookup`-compatible function for an `http.Agent`: resolves as usual,
 * then refuses the connection when any answer is a non-public address. Node's
 * `net.connect` calls it for host names only; IP literals must be checked with
 * `isBlockedAddress` before the request (see `checkLiteral`).
 */
export const guardedLookup = (allowPrivate: boolean): net.LookupFunction => (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0)
    const list = addresses as unknown as Array<dns.LookupAddress>
    if (!allowPrivate && (isLocalName(hostname) || list.some((a) => isBlockedAddress(a.address)))) {
      return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, "", 0)
    }
    if ((options as dns.LookupOptions).all) return (callback as any)(null, list)
    const first = list[0]
    if (first === undefined) return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, "", 0)
    callback(null, first.address, first.family)
  })
}

/** Before a request: an IP-literal host (which skips `lookup`) is checked here. */
export const checkLiteral = (url: URL, allowPrivate: boolean): boolean => {
  if (allowPrivate) return true
  const host = hostOf(url)
  if (isLocalName(host)) return false
  return net.isIP(host) === 0 || !isBlockedAddress(host)
}

const formatMessage = "must be an absolute http(s) URL"
const privateMessage =
  "must not point to a loopback, private, link-local or otherwise non-public address (a receiver on your own machine or network needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the service)"

export class UrlGuard extends Effect.Service<UrlGuard>()("Webhooks/UrlGuard", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const allowPrivate = config.webhookAllowPrivateNetworks

    const resolveAll = (host: string): Effect.Effect<ReadonlyArray<string>> =>
      Effect.tryPromise(() => dns.promises.lookup(host, { all: true, verbatim: true })).pipe(
        Effect.map((answers) => answers.map((a) => a.address)),
        Effect.timeout(Duration.seconds(3)),
        // A name that does not resolve (now) cannot be shown to be private; the
        // connect-time check still refuses it if it later resolves to one.
        Effect.orElseSucceed(() => [] as ReadonlyArray<string>)
      )

    /** 400 on `webhookUrl` unless the URL is absolute http(s) and its host is public. */
    const validateForSave = (url: string): Effect.Effect<void, ValidationError> =>
      Effect.gen(function*() {
        let parsed: URL
        try {
          parsed = new URL(url)
        } catch {
          return yield* Effect.fail(ValidationError.field("webhookUrl", formatMessage))
        }
        if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname.length === 0) {
          return yield* Effect.fail(ValidationError.field("webhookUrl", formatMessage))
        }
        if (allowPrivate) return
        const host = hostOf(parsed)
        if (isLocalName(host)) return yield* Effect.fail(ValidationError.field("webhookUrl", privateMessage))
        const addresses = net.isIP(host) !== 0 ? [host] : yield* resolveAll(host)
        if (addresses.some(isBlockedAddress)) {
          return yield* Effect.fail(ValidationError.field("webhookUrl", privateMessage))
        }
      }).pipe(Effect.withSpan("UrlGuard.validateForSave"))

    return {
      validateForSave,
      /** For the delivery agent: `lookup` that re-checks every resolved address. */
      lookup: guardedLookup(allowPrivate),
      /** For the delivery sender: false when an IP-literal host is not allowed. */
      allowsLiteral: (url: URL): boolean => checkLiteral(url, allowPrivate),
      allowPrivate
    } as const
  })
}) {}
