import * as Effect from "effect/Effect";
import { spawn } from "node:child_process";
const collector = (max) => {
    const chunks = [];
    let size = 0;
    return {
        push: (chunk) => {
            if (size >= max)
                return;
            const part = chunk.subarray(0, max - size);
            chunks.push(part);
            size += part.length;
        },
        text: () => Buffer.concat(chunks).toString("utf8")
    };
};
/**
 * Runs a command as a child process in its own process group. Interrupting
 * the effect (a timeout, SIGTERM of the agent) kills the whole group — the
 * shell and everything it started — with SIGTERM, then SIGKILL after 2 s.
 */
export const execute = (command, options = {}) => Effect.async((resume) => {
    const max = options.maxOutputBytes ?? 1024 * 1024;
    const [file, args, shell] = typeof command === "string"
        ? ["/bin/sh", ["-c", command], false]
        : [command[0], command.slice(1), false];
    const child = spawn(file, args, {
        shell,
        detached: true,
        env: { ...process.env, ...options.env },
        stdio: ["pipe", "pipe", "pipe"]
    });
    const out = collector(max);
    const err = collector(max);
    child.stdout.on("data", out.push);
    child.stderr.on("data", err.push);
    child.stdin.on("error", () => {
        // The child may exit without reading its stdin; that is not an error of the run.
    });
    child.stdin.end(options.stdin ?? "");
    let settled = false;
    child.once("error", (error) => {
        if (settled)
            return;
        settled = true;
        resume(Effect.fail(error));
    });
    child.once("close", (code, signal) => {
        if (settled)
            return;
        settled = true;
        resume(Effect.succeed({ exitCode: code, signal, stdout: out.text(), stderr: err.text() }));
    });
    return Effect.sync(() => {
        const killGroup = (sig) => {
            try {
                if (child.pid !== undefined)
                    process.kill(-child.pid, sig);
            }
            catch {
                // Already gone.
            }
        };
        killGroup("SIGTERM");
        const escalate = setTimeout(() => killGroup("SIGKILL"), 2000);
        escalate.unref();
        child.once("close", () => clearTimeout(escalate));
    });
});
/** A command spec from a run's `input`: `input.command` as a string or an array of strings. */
export const commandOf = (input) => {
    if (input === null || typeof input !== "object")
        return undefined;
    const command = input.command;
    if (typeof command === "string" && command.length > 0)
        return command;
    if (Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === "string")) {
        return command;
    }
    return undefined;
};
//# sourceMappingURL=Exec.js.map