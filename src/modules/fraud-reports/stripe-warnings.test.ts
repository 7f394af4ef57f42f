import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripeFraudReasonFor, stripeFraudTypeReasons } from './stripe-warnings.ts';

/** Each `fraud_type` Stripe documents for early fraud warnings, with the reason a report must carry. */
const cases: ReadonlyArray<readonly [fraudType: string, reason: string]> = [
  ['card_never_received', 'Card never received by the cardholder'],
  ['fraudulent_card_application', 'Fraudulent card application'],
  ['made_with_counterfeit_card', 'Counterfeit card'],
  ['made_with_lost_card', 'Lost card'],
  ['made_with_stolen_card', 'Stolen card'],
  ['misc', 'Miscellaneous fraud'],
  ['unauthorized_use_of_card', 'Unauthorized use of the card (card not present)'],
];

for (const [fraudType, reason] of cases) {
  test(`Stripe fraud_type ${fraudType} → "${reason}"`, () => {
    assert.equal(stripeFraudReasonFor(fraudType), reason);
  });
}

test('exactly the documented types; an unknown one is named as it is', () => {
  assert.deepEqual(Object.keys(stripeFraudTypeReasons).sort(), cases.map(([fraudType]) => fraudType).sort());
  assert.equal(stripeFraudReasonFor('new_kind'), 'Fraud type new_kind');
});
