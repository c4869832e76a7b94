import { Conflict, Forbidden, NotFound } from "../Contract/Domain/ApiErrors.js"
import { answering } from "../Http/DomainErrors.js"
import type * as E from "./TenancyErrors.js"
import type { InsufficientRole, NotVisible } from "./TenancyErrors.js"

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

const notFound = (error: { readonly message: string }) => new NotFound({ error: error.message })
const forbidden = (error: { readonly message: string }) => new Forbidden({ error: error.message })
const conflict = (error: { readonly message: string }) => new Conflict({ error: error.message })

/** Workspaces', environments' and members' own failures, and the access policy's, as the contract answers them. */
export const answerTenancyErrors = answering({
  ...accessCases,
  WorkspaceNotFound: (error: E.WorkspaceNotFound) => notFound(error),
  NotWorkspaceOwner: (error: E.NotWorkspaceOwner) => forbidden(error),
  EnvironmentNotFound: (error: E.EnvironmentNotFound) => notFound(error),
  EnvironmentHasActiveRuns: (error: E.EnvironmentHasActiveRuns) => conflict(error),
  UserNotFound: (error: E.UserNotFound) => notFound(error),
  MemberNotFound: (error: E.MemberNotFound) => notFound(error),
  AlreadyMember: (error: E.AlreadyMember) => conflict(error),
  OwnerRoleReserved: (error: E.OwnerRoleReserved) => forbidden(error),
  LastOwner: (error: E.LastOwner) => conflict(error)
})
