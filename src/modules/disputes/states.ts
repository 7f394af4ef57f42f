import type { DisputeStatus } from '../../db/schema/disputes.ts';

/**
 * What a dispute's reported status does to ours (pure; every edge tested in states.test.ts).
 * - `none`: nothing changes (the same status again, or anything after a final one: a late or
 *   replayed webhook never reopens a closed dispute);
 * - `update`: an open dispute moves between NEEDS_RESPONSE and UNDER_REVIEW (no event, no money);
 * - `close`: an open dispute ends WON (the disputed amount comes back) or LOST.
 */
export type DisputeTransition = 'none' | 'update' | 'close';

export function isFinal(status: DisputeStatus): boolean {
  return status === 'WON' || status === 'LOST';
}

export function disputeTransition(from: DisputeStatus, to: DisputeStatus): DisputeTransition {
  if (from === to || isFinal(from)) {
    return 'none';
  }
  return isFinal(to) ? 'close' : 'update';
}
