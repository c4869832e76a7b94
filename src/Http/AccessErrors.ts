import { Forbidden, NotFound } from "../Domain/Errors.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { answering } from "./DomainErrors.js"

/**
 * The access policy's refusals as the contract answers them: not visible is
 * 404 (existence never leaks), visible but below the role 403. Each feature's
 * mapping includes these cases; `answerAccess` serves handlers with no other.
 */
export const accessCases = {
  NotVisible: (error: NotVisible) => new NotFound({ error: error.message }),
  InsufficientRole: (_: InsufficientRole) => Forbidden.role
}

export const answerAccess = answering(accessCases)
