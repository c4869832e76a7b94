import { Conflict, NotFound } from "../Domain/Errors.js"
import { answering } from "../Http/DomainErrors.js"
import type { TriggerHasActiveRuns, TriggerNotFound } from "./TriggerErrors.js"

/** The triggers' own failures as the contract answers them (the HTTP handlers, the embedding API). */
export const answerTriggerErrors = answering({
  TriggerNotFound: (_: TriggerNotFound) => NotFound.of("trigger"),
  TriggerHasActiveRuns: (error: TriggerHasActiveRuns) => new Conflict({ error: error.message })
})
