import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disputeStatuses, type DisputeStatus } from '../../db/schema/disputes.ts';
import { disputeTransition, type DisputeTransition } from './states.ts';

const expected: Record<DisputeStatus, Record<DisputeStatus, DisputeTransition>> = {
  NEEDS_RESPONSE: { NEEDS_RESPONSE: 'none', UNDER_REVIEW: 'update', WON: 'close', LOST: 'close' },
  UNDER_REVIEW: { NEEDS_RESPONSE: 'update', UNDER_REVIEW: 'none', WON: 'close', LOST: 'close' },
  WON: { NEEDS_RESPONSE: 'none', UNDER_REVIEW: 'none', WON: 'none', LOST: 'none' },
  LOST: { NEEDS_RESPONSE: 'none', UNDER_REVIEW: 'none', WON: 'none', LOST: 'none' },
};

for (const from of disputeStatuses) {
  for (const to of disputeStatuses) {
    test(`dispute ${from} → ${to}: ${expected[from][to]}`, () => {
      assert.equal(disputeTransition(from, to), expected[from][to]);
    });
  }
}
