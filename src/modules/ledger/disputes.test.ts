import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disputeDebit, disputeReturn } from './disputes.ts';
import { entriesOf } from './postings.ts';

const movement = { merchantId: 'mer_1', livemode: true, disputeId: 'dp_1', currency: 'USD', amount: 4_200 };

test('a dispute takes the amount from available to the outside world, once per dispute', () => {
  const debit = disputeDebit(movement);
  assert.equal(debit.idempotencyKey, 'dispute:dp_1:debit');
  assert.equal(debit.kind, 'dispute');
  assert.equal(debit.reference, 'dp_1');
  assert.equal(debit.currency, 'USD');
  assert.deepEqual(entriesOf(debit.postings), [
    { account: 'available', amount: -4_200 },
    { account: 'external', amount: 4_200 },
  ]);
});

test('a won dispute returns exactly the debit, under its own key', () => {
  const back = disputeReturn(movement);
  assert.equal(back.idempotencyKey, 'dispute:dp_1:return');
  assert.equal(back.kind, 'dispute_won');
  assert.deepEqual(entriesOf(back.postings), [
    { account: 'available', amount: 4_200 },
    { account: 'external', amount: -4_200 },
  ]);
});

test('a currency the ledger keeps no balance in is refused, never posted elsewhere', () => {
  assert.throws(() => disputeDebit({ ...movement, currency: 'JPY' }), /no JPY balance/);
});
