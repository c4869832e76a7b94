import Pg from "pg";
/**
 * A `pg` client class that runs parameterized statements as named prepared
 * statements. `@effect/sql-pg` sends every statement unnamed, so Postgres
 * parses and plans it on every call: with our hot statements (run creation,
 * the terminal transition's CTEs) planning cost more than executing, about a
 * third of the database's CPU per run. Named, a statement is parsed once per
 * connection and its plan is cached by Postgres.
 *
 * - Only statements with parameters are named: the hot paths all have some,
 *   and parameterless text (migrations, LISTEN, cancels) may hold several
 *   statements, which the extended protocol cannot prepare.
 * - At most `limit` distinct texts get a name (each costs a plan on every
 *   connection); later ones run unnamed, as before.
 * - A statement Postgres refuses to run from its cached plan after a schema
 *   change (SQLSTATE 0A000, "cached plan must not change result type", e.g.
 *   another instance migrated a `SELECT *` table) fails that once and runs
 *   unnamed from then on.
 * - Each connection prepares its statements again (a new name, the old one
 *   deallocated) at 1, 2, 4, … up to `replanCapSeconds` after it opened. A
 *   cached generic plan is only replaced when the table is analyzed: one made
 *   while a new database's tables were nearly empty (a sequential scan of
 *   `runs` in the batched complete, measured at 1.3 ms a call against 0.3)
 *   otherwise outlives their growth wherever autovacuum has not analyzed them
 *   yet (or is off, as on our CI machines).
 */
export const preparingClient = (limit = 256, replanCapSeconds = 4096) => {
    const names = new Map();
    const nameOf = (text) => {
        const known = names.get(text);
        if (known !== undefined)
            return known;
        const name = names.size < limit ? `pts_${names.size}` : null;
        names.set(text, name);
        return name;
    };
    class PreparingClient extends Pg.Client {
        #opened = Date.now();
        // The name each text was last prepared under on this connection.
        #prepared = new Map();
        /** 0 in the first two seconds, then one more each time the connection's age doubles, up to the cap. */
        #generation() {
            const age = Math.min((Date.now() - this.#opened) / 1000, replanCapSeconds);
            return age < 2 ? 0 : Math.floor(Math.log2(age));
        }
        query(config, values, callback) {
            if (typeof config === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
                const base = nameOf(config);
                if (base !== null) {
                    const name = `${base}_${this.#generation()}`;
                    const previous = this.#prepared.get(config);
                    if (previous !== name) {
                        if (previous !== undefined) {
                            // Queued ahead of the statement on this connection; a failure only means it was never prepared.
                            super.query(`DEALLOCATE ${previous}`, () => { });
                            delete this.connection.parsedStatements[previous];
                        }
                        this.#prepared.set(config, name);
                    }
                    return super.query({ name, text: config, values }, (err, result) => {
                        // Never named again: every connection's copy may be stale.
                        if (err && err.code === "0A000")
                            names.set(config, null);
                        callback(err, result);
                    });
                }
            }
            return super.query(config, values, callback);
        }
    }
    return PreparingClient;
};
//# sourceMappingURL=PreparedStatements.js.map