import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import type { TriggerHasActiveRuns, TriggerNotFound } from "./TriggerErrors.js"

/** The triggers' own failures, and the access policy's, as the contract answers them (the HTTP handlers, the embedding API). */
export const answerTriggerErrors = answering({
  ...accessCases,
  TriggerNotFound: (_: TriggerNotFound) => NotFound.of("trigger"),
  TriggerHasActiveRuns: (error: TriggerHasActiveRuns) => new Conflict({ error: error.message })
})
