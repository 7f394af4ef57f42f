import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disputeReasonOf, stripeDisputeStates } from './stripe.ts';

/**
 * Every Stripe dispute status (stripe-node's `Dispute.Status`), grouped by the status it must become:
 * an inquiry (`warning_*`) or an appeal waits like a dispute, and every way of ending without a
 * chargeback is WON.
 */
const byOutcome = {
  NEEDS_RESPONSE: ['warning_needs_response', 'needs_response', 'appeal_needs_response'],
  UNDER_REVIEW: ['warning_under_review', 'under_review', 'appeal_under_review'],
  WON: ['warning_closed', 'prevented', 'won'],
  LOST: ['lost'],
} as const;
const expected = Object.entries(byOutcome).flatMap(([ours, statuses]) => statuses.map((stripeStatus) => [stripeStatus, ours] as const));

for (const [stripeStatus, ours] of expected) {
  test(`Stripe dispute status ${stripeStatus} → ${ours}`, () => {
    assert.equal(stripeDisputeStates[stripeStatus], ours);
  });
}

test('the table has exactly these rows; an unknown status maps to nothing (never guessed)', () => {
  assert.deepEqual(Object.keys(stripeDisputeStates).sort(), expected.map(([stripeStatus]) => stripeStatus).sort());
  assert.equal(stripeDisputeStates['something_new'], undefined);
});

test("Stripe's reasons in upper snake case", () => {
  assert.equal(disputeReasonOf('product_not_received'), 'PRODUCT_NOT_RECEIVED');
  assert.equal(disputeReasonOf('fraudulent'), 'FRAUDULENT');
  assert.equal(disputeReasonOf(''), 'GENERAL');
});
