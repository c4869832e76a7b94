import type { ChannelClient } from "./Channel.js"

/**
 * Which of a channel worker's slots go back with a run's `Complete` and
 * which need a `Slots` message of their own. The service grants a
 * `Complete`'s `slots` to the connection it came on, once answered; so a
 * complete carries the slot of a run only when that run was pushed by the
 * subscription open on the same connection, and the run's end then gives
 * nothing back. Any other run (its complete failed, went on another
 * connection, or its subscription ended meanwhile) gives its slot back with
 * `Slots`, as before. Every slot goes back exactly once, so the service never
 * pushes more runs than the worker's concurrency.
 */
export interface SlotLedger {
  /** A `Runs` subscription opened on `client`; the previous one (if any) ended. */
  readonly subscribed: (client: ChannelClient) => void
  /** The subscription ended: no slot goes back until the next one counts what is free. */
  readonly unsubscribed: () => void
  /** A run pushed by the subscription open now. */
  readonly pushed: (runId: string) => void
  /**
   * Of the runs of a `Complete` about to go on `client`, those whose slot it
   * gives back; with the token `returned` takes once the call was answered.
   */
  readonly returning: (client: ChannelClient, runIds: ReadonlyArray<string>) => { readonly runIds: ReadonlyArray<string>; readonly token: number }
  /** The `Complete` was answered: the service granted these runs' slots. */
  readonly returned: (token: number, runIds: ReadonlyArray<string>) => void
  /** A run ended: whether its slot still needs a `Slots` grant (false: its complete gave it back, or nothing is subscribed). */
  readonly needsGrant: (runId: string) => boolean
}

export const make = (): SlotLedger => {
  // One number per subscription; 0 while none is open.
  let subscription = 0
  let last = 0
  let client: ChannelClient | undefined
  // Runs pushed by the open subscription whose slot has not gone back: the subscription's number.
  const open = new Map<string, number>()
  // Runs whose complete gave the slot back, with the subscription it went to.
  const given = new Map<string, number>()

  return {
    subscribed: (now) => {
      subscription = ++last
      client = now
      open.clear()
    },
    unsubscribed: () => {
      subscription = 0
      client = undefined
      open.clear()
    },
    pushed: (runId) => {
      if (subscription !== 0) open.set(runId, subscription)
    },
    returning: (on, runIds) => {
      if (subscription === 0 || on !== client) return { runIds: [], token: 0 }
      return { runIds: runIds.filter((runId) => open.get(runId) === subscription), token: subscription }
    },
    returned: (token, runIds) => {
      for (const runId of runIds) {
        if (open.get(runId) !== token) continue
        open.delete(runId)
        given.set(runId, token)
      }
    },
    needsGrant: (runId) => {
      const to = given.get(runId)
      given.delete(runId)
      open.delete(runId)
      if (subscription === 0) return false
      // Given back to the subscription open now: done. To one that ended: the open one counted it busy.
      return to !== subscription
    }
  }
}
