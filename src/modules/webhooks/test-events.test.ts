import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { isId } from '../../crypto/ids.ts';
import { eventTypes } from '../events/index.ts';
import { Entitlement } from '../entitlements/index.ts';
import { PayinDetails } from '../payment-pages/index.ts';
import { PayoutPage } from '../payout-pages/index.ts';
import { Refund } from '../refunds/index.ts';
import { exampleEventData, isTestEventId, newTestEventId, testObjectIds } from './test-events.ts';

const context = { merchantId: 'mer_0000000000000000000000000000000001', livemode: false, publicUrl: 'http://paysail.test', now: new Date('2026-01-01T00:00:00Z') };

test('test event ids are unique, marked, and never real event ids', () => {
  const first = newTestEventId(context.now);
  const second = newTestEventId(context.now);
  assert.notEqual(first, second);
  for (const id of [first, second]) {
    assert.match(id, /^evt_test_[0-9a-z]{36}$/);
    assert.ok(isTestEventId(id));
    assert.equal(isId('event', id), false);
  }
  assert.equal(isTestEventId('evt_0000000000000000000000000000000000'), false);
});

test('object ids in examples are as long as real ids but never valid ones', () => {
  const kinds = { paymentPage: 'paymentPage', payment: 'payment', customer: 'customer', payoutPage: 'payoutPage', subscription: 'subscription', invoice: 'invoice', entitlement: 'entitlement', refund: 'refund' } as const;
  for (const [name, kind] of Object.entries(kinds)) {
    const id = testObjectIds[name as keyof typeof testObjectIds];
    assert.match(id, /_test_0{31}$/);
    assert.equal(isId(kind, id), false, `${id} is not a real ${kind} id`);
  }
});

test('every event type has an example with the real payload shape', () => {
  for (const type of eventTypes) {
    const data = exampleEventData(type, context);
    assert.ok(Object.keys(data).length > 0, type);
    assert.equal(JSON.stringify(data).includes('@'), false, `${type}: no e-mail address (no PII) in examples`);
  }
  const payment = exampleEventData('PAYMENT_SUCCEEDED', context);
  assert.ok(Value.Check(PayinDetails, payment.payinDetails), 'payinDetails as on a paid page');
  assert.deepEqual(Object.keys(exampleEventData('PAYMENT_EXPIRED', context)).sort(), ['clientReferenceId', 'pageId']);
  assert.deepEqual(Object.keys(exampleEventData('FRAUD_REPORTED', context)).sort(), ['clientReferenceId', 'fraudReason', 'fraudReportId', 'pageId']);
  assert.ok(Value.Check(Entitlement, exampleEventData('ENTITLEMENT_CREATED', context)), 'ENTITLEMENT_CREATED data is an entitlement');

  for (const type of ['PAYMENT_REFUNDED', 'REFUND_FAILED'] as const) {
    const { clientReferenceId, ...refund } = exampleEventData(type, context);
    assert.equal(clientReferenceId, 'paysail-test-event');
    assert.ok(Value.Check(Refund, refund), `${type} data is a refund plus clientReferenceId`);
    assert.equal(refund['status'], type === 'PAYMENT_REFUNDED' ? 'SUCCEEDED' : 'FAILED');
  }

  // PAYOUT_PAGE_UPDATED is the page as the API reads it, without the customer's e-mail, plus the previous state.
  const { previousStatus, previousSubStatus, customer, ...page } = exampleEventData('PAYOUT_PAGE_UPDATED', context);
  assert.equal(previousStatus, 'CREATED');
  assert.equal(previousSubStatus, 'AWAITING_CUSTOMER');
  const asRead = { ...page, customer: { ...(customer as Record<string, unknown>), email: 'payee@example.com' } };
  assert.ok(Value.Check(PayoutPage, asRead), JSON.stringify([...Value.Errors(PayoutPage, asRead)].slice(0, 3)));

  // PAYOUT_PAGE_LOCKED / _REISSUED: the page as read, without the e-mail; only the locked one has lockedAt.
  for (const type of ['PAYOUT_PAGE_LOCKED', 'PAYOUT_PAGE_REISSUED'] as const) {
    const { customer: reference, ...lockPage } = exampleEventData(type, context);
    const read = { ...lockPage, customer: { ...(reference as Record<string, unknown>), email: 'payee@example.com' } };
    assert.ok(Value.Check(PayoutPage, read), `${type}: ${JSON.stringify([...Value.Errors(PayoutPage, read)].slice(0, 3))}`);
    assert.equal('lockedAt' in lockPage, type === 'PAYOUT_PAGE_LOCKED');
  }
});
