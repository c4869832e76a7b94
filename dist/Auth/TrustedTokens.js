export const make = (trustMillis, capacity = 10_000) => {
    const verified = new Map();
    return {
        trusted: (hash, now) => {
            const known = verified.get(hash);
            if (known === undefined)
                return undefined;
            if (now - known.at < trustMillis)
                return known.value;
            known.at = now;
            return undefined;
        },
        remember: (hash, value, now) => {
            if (verified.size >= capacity) {
                for (const [key, entry] of verified)
                    if (now - entry.at >= trustMillis)
                        verified.delete(key);
            }
            verified.set(hash, { value, at: now });
        },
        forget: (hash) => void verified.delete(hash),
        forgetWhere: (matches) => {
            for (const [key, entry] of verified)
                if (matches(entry.value))
                    verified.delete(key);
        }
    };
};
//# sourceMappingURL=TrustedTokens.js.map