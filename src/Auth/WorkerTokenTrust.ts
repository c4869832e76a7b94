import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"
import type { WorkerIdentity } from "../Contract/Security.js"
import * as TrustedTokens from "./TrustedTokens.js"

/** How long a verified worker token is trusted without asking the database again. */
export const workerTokenTrustMillis = 1000

/** Postgres channel carrying the id of a worker whose token was just revoked. */
export const workerRevokedChannel = "pts_worker_revoked"

/**
 * The `wkt_` tokens this instance verified in the last second (see
 * `Authentication.layerWorker`), shared with whatever revokes a
 * worker. A revocation is announced with NOTIFY in its own transaction, so
 * every instance (this one too) forgets the worker's token as soon as the
 * revocation commits, rather than trusting it for the rest of its second.
 */
export class WorkerTokenTrust extends Effect.Service<WorkerTokenTrust>()("Auth/WorkerTokenTrust", {
  scoped: Effect.gen(function*() {
    const notifications = yield* Notifications
    const cache = TrustedTokens.make<WorkerIdentity>(workerTokenTrustMillis)
    // Workers revoked since this instance started: a verification that read
    // the worker just before its revocation committed must not put its token
    // back after it was forgotten. Revocation is for good, so the set only
    // grows; past its bound it is cleared (the database refuses those tokens).
    const revoked = new Set<string>()
    const forgetWorker = (workerId: string): void => {
      if (revoked.size >= 10_000) revoked.clear()
      revoked.add(workerId)
      cache.forgetWhere((identity) => identity.workerId === workerId)
    }
    const tokens: TrustedTokens.TrustedTokens<WorkerIdentity> = {
      ...cache,
      remember: (hash, identity, now) => {
        if (!revoked.has(identity.workerId)) cache.remember(hash, identity, now)
      }
    }

    yield* notifications.listen(workerRevokedChannel).pipe(
      Stream.runForEach((workerId) => Effect.sync(() => forgetWorker(workerId))),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for revoked workers failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )

    return { tokens, forgetWorker } as const
  })
}) {}
