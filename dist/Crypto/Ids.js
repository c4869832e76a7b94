import { randomFillSync } from "node:crypto";
let lastMs = 0;
let seq = 0;
// Random bytes are drawn from the OS a pool at a time: one call per id cost
// ~30 µs on the hot path (several ids per run), one call per 256 ids does not.
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;
const random16 = () => {
    if (poolOffset + 16 > pool.length) {
        randomFillSync(pool);
        poolOffset = 0;
    }
    // A copy: the pool is refilled in place.
    const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
    poolOffset += 16;
    return bytes;
};
/**
 * UUIDv7: 48-bit millisecond timestamp, then randomness. Ids sort by creation
 * time, which keyset pagination and "newest first" listings rely on. A
 * per-process counter in the random bits keeps ids from one millisecond ordered.
 */
export const uuidv7 = () => {
    const now = Date.now();
    const bytes = random16();
    if (now === lastMs) {
        seq = (seq + 1) & 0xfff;
    }
    else {
        lastMs = now;
        // A random start below the counter's midpoint, so it has room to count up.
        seq = random16().readUInt16BE(0) & 0x7ff;
    }
    bytes.writeUIntBE(now, 0, 6);
    bytes[6] = 0x70 | (seq >> 8);
    bytes[7] = seq & 0xff;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = bytes.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
//# sourceMappingURL=Ids.js.map