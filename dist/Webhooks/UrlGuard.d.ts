import * as Effect from "effect/Effect";
import * as net from "node:net";
import { AppConfig } from "../Config/AppConfig.js";
import { ValidationError } from "../Domain/Errors.js";
/**
 * True when the literal IP address is not a public unicast address. IPv6 forms
 * that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) are judged by the embedded IPv4 address. Anything that does
 * not parse is treated as blocked.
 */
export declare const isBlockedAddress: (address: string) => boolean;
/** `[::1]` → `::1`: the WHATWG URL keeps IPv6 hosts bracketed. */
export declare const hostOf: (url: URL) => string;
export declare class BlockedAddressError extends Error {
    readonly host: string;
    readonly code = "EBLOCKEDADDRESS";
    constructor(host: string);
}
/**
 * A `dns.lookup`-compatible function for an `http.Agent`: resolves as usual,
 * then refuses the connection when any answer is a non-public address. Node's
 * `net.connect` calls it for host names only; IP literals must be checked with
 * `isBlockedAddress` before the request (see `checkLiteral`).
 */
export declare const guardedLookup: (allowPrivate: boolean) => net.LookupFunction;
/** Before a request: an IP-literal host (which skips `lookup`) is checked here. */
export declare const checkLiteral: (url: URL, allowPrivate: boolean) => boolean;
declare const UrlGuard_base: Effect.Service.Class<UrlGuard, "Webhooks/UrlGuard", {
    readonly effect: Effect.Effect<{
        readonly validateForSave: (url: string) => Effect.Effect<void, ValidationError>;
        /** For the delivery agent: `lookup` that re-checks every resolved address. */
        readonly lookup: net.LookupFunction;
        /** For the delivery sender: false when an IP-literal host is not allowed. */
        readonly allowsLiteral: (url: URL) => boolean;
        readonly allowPrivate: boolean;
    }, never, AppConfig>;
}>;
export declare class UrlGuard extends UrlGuard_base {
}
export {};
//# sourceMappingURL=UrlGuard.d.ts.map