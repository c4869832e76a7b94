import { randomBytes } from "node:crypto"

let lastMs = 0
let seq = 0

/**
 * UUIDv7: 48-bit millisecond timestamp, then randomness. Ids sort by creation
 * time, which keyset pagination and "newest first" listings rely on. A
 * per-process counter in the random bits keeps ids from one millisecond ordered.
 */
export const uuidv7 = (): string => {
  const now = Date.now()
  if (now === lastMs) {
    seq = (seq + 1) & 0xfff
  } else {
    lastMs = now
    seq = randomBytes(2).readUInt16BE(0) & 0x7ff
  }
  const bytes = randomBytes(16)
  bytes.writeUIntBE(now, 0, 6)
  bytes[6] = 0x70 | (seq >> 8)
  bytes[7] = seq & 0xff
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
