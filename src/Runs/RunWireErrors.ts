import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import type { RunNotFound, RunRejection, RunStateConflict } from "../Scheduler/RunRejection.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"

/**
 * A refused run step as the contract answers it, for every handler that moves
 * runs (the worker protocol, cancel): 404 for a run that is not there for the
 * caller, 409 for the wrong state, with the reason as the body's `error`.
 */
export const rejectionError = (why: RunRejection): NotFound | Conflict =>
  why._tag === "RunNotFound" ? NotFound.of("run") : new Conflict({ error: why.message })

/** A run of the batched complete that was refused, as its `rejected` entry says it (the status `complete` would answer). */
export const rejectedRun = (why: RunRejection) => ({
  runId: why.runId,
  status: why._tag === "RunNotFound" ? 404 as const : 409 as const,
  error: rejectionError(why).error
})

/** `effect` with its run rejections answered as `rejectionError` says (and the access policy's refusals). */
export const answerRejections = answering({
  ...accessCases,
  RunNotFound: (why: RunNotFound) => rejectionError(why) as NotFound,
  RunStateConflict: (why: RunStateConflict) => rejectionError(why) as Conflict
})
