import { NotFound, Unauthorized } from "../Contract/Domain/ApiErrors.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import type { WorkspaceNotFound } from "../Tenancy/TenancyErrors.js"
import type { InvalidRegistrationToken, WorkerNotFound } from "./WorkerErrors.js"

/** The workers' own failures, and the access policy's, as the contract answers them. */
export const answerWorkerErrors = answering({
  ...accessCases,
  WorkerNotFound: (error: WorkerNotFound) => new NotFound({ error: error.message }),
  WorkspaceNotFound: (error: WorkspaceNotFound) => new NotFound({ error: error.message }),
  InvalidRegistrationToken: (error: InvalidRegistrationToken) => new Unauthorized({ error: error.message })
})
