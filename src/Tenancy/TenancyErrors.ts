import * as Schema from "effect/Schema"
import { Role } from "../Contract/Domain/Schemas.js"

/** No such workspace, or the user may not see it. */
export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()("WorkspaceNotFound", { workspaceId: Schema.String }) {
  override get message(): string {
    return "workspace not found"
  }
}

/** Only a workspace's owner creates environments in it. */
export class NotWorkspaceOwner extends Schema.TaggedError<NotWorkspaceOwner>()("NotWorkspaceOwner", { workspaceId: Schema.String }) {
  override get message(): string {
    return "only the workspace owner creates environments"
  }
}

/** No such environment (deleted meanwhile). */
export class EnvironmentNotFound extends Schema.TaggedError<EnvironmentNotFound>()("EnvironmentNotFound", {
  environmentId: Schema.String
}) {
  override get message(): string {
    return "environment not found"
  }
}

/** An environment with queued, assigned, claimed or running runs cannot be deleted. */
export class EnvironmentHasActiveRuns extends Schema.TaggedError<EnvironmentHasActiveRuns>()("EnvironmentHasActiveRuns", {
  environmentId: Schema.String,
  activeRuns: Schema.Int
}) {
  override get message(): string {
    return `environment has ${this.activeRuns} active run(s); wait for them to finish`
  }
}

/** No such user to add. */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", { userId: Schema.String }) {
  override get message(): string {
    return "user not found"
  }
}

/** The user is no member of the environment. */
export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", { userId: Schema.String }) {
  override get message(): string {
    return "member not found"
  }
}

/** The user is a member of the environment already. */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", { userId: Schema.String }) {
  override get message(): string {
    return "user is already a member"
  }
}

/** Granting, changing or removing the owner role takes an owner. */
export class OwnerRoleReserved extends Schema.TaggedError<OwnerRoleReserved>()("OwnerRoleReserved", {}) {
  override get message(): string {
    return "only an owner grants, changes or removes the owner role"
  }
}

/** The change would leave the environment without an owner. */
export class LastOwner extends Schema.TaggedError<LastOwner>()("LastOwner", {}) {
  override get message(): string {
    return "an environment must keep at least one owner"
  }
}

/**
 * The caller has no role in the environment: to it, the environment and
 * everything in it (`what`: the thing asked for, e.g. "trigger") do not exist.
 */
export class NotVisible extends Schema.TaggedError<NotVisible>()("NotVisible", {
  environmentId: Schema.String,
  what: Schema.String
}) {
  override get message(): string {
    return `${this.what} not found`
  }
}

/** The caller's role in the environment is below the one the action needs. */
export class InsufficientRole extends Schema.TaggedError<InsufficientRole>()("InsufficientRole", {
  environmentId: Schema.String,
  required: Role,
  actual: Role
}) {
  override get message(): string {
    return "insufficient role"
  }
}
