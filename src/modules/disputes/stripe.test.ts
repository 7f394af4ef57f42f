import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disputeReasonOf, stripeDisputeStates } from './stripe.ts';

/** One row per Stripe dispute status (stripe-node's `Dispute.Status`). */
const expected = {
  warning_needs_response: 'NEEDS_RESPONSE',
  warning_under_review: 'UNDER_REVIEW',
  warning_closed: 'WON',
  needs_response: 'NEEDS_RESPONSE',
  under_review: 'UNDER_REVIEW',
  appeal_needs_response: 'NEEDS_RESPONSE',
  appeal_under_review: 'UNDER_REVIEW',
  prevented: 'WON',
  won: 'WON',
  lost: 'LOST',
} as const;

for (const [stripeStatus, ours] of Object.entries(expected)) {
  test(`Stripe dispute status ${stripeStatus} → ${ours}`, () => {
    assert.equal(stripeDisputeStates[stripeStatus], ours);
  });
}

test('the table has exactly these rows; an unknown status maps to nothing (never guessed)', () => {
  assert.deepEqual(Object.keys(stripeDisputeStates).sort(), Object.keys(expected).sort());
  assert.equal(stripeDisputeStates['something_new'], undefined);
});

test("Stripe's reasons in upper snake case", () => {
  assert.equal(disputeReasonOf('product_not_received'), 'PRODUCT_NOT_RECEIVED');
  assert.equal(disputeReasonOf('fraudulent'), 'FRAUDULENT');
  assert.equal(disputeReasonOf(''), 'GENERAL');
});
