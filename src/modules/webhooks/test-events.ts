import { newId } from '../../crypto/ids.ts';
import type { EventType } from '../events/index.ts';

/**
 * Test events (`POST /v1/webhook_endpoints/:id/test`, the dashboard's "Send test event"): an example
 * event of a real type, sent to one endpoint through the normal delivery path. Nothing in them can be
 * mistaken for a real object: the event id starts with `evt_test_` and every object id in `data`
 * has `test_` after its prefix (`page_test_000…`). Real ids are `<prefix><36 of [0-9a-z]>`, so no
 * real id ever matches either form, and reading such an id through the API answers 404.
 */

export const testEventIdPrefix = 'evt_test_';

/** `evt_test_` + the time-ordered random part of a real event id: unique per send, sortable. */
export function newTestEventId(now: Date): string {
  return testEventIdPrefix + newId('event', now.getTime()).slice('evt_'.length);
}

export function isTestEventId(eventId: string): boolean {
  return eventId.startsWith(testEventIdPrefix);
}

/** `<prefix>test_` + zeros, as long as a real id of that prefix; never a real id (those have no second `_`). */
function testObjectId(prefix: string): string {
  return `${prefix}test_${'0'.repeat(31)}`;
}

export const testObjectIds = {
  paymentPage: testObjectId('page_'),
  payment: testObjectId('pay_'),
  customer: testObjectId('cus_'),
  payoutPage: testObjectId('payout_page_'),
  subscription: testObjectId('sub_'),
  invoice: testObjectId('inv_'),
  entitlement: testObjectId('ent_'),
  dispute: testObjectId('dp_'),
  refund: testObjectId('re_'),
} as const;

/** References of the examples: they say what they are wherever a receiver logs them. */
export const testClientReferenceId = 'paysail-test-event';
export const testCustomerReferenceId = 'paysail-test-customer';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * The example `data` of each type: the same fields as the real event (docs/webhooks.md), with
 * test ids, fixed example amounts and no personal data.
 */
export function exampleEventData(type: EventType, context: { merchantId: string; livemode: boolean; publicUrl: string; now: Date }): Record<string, unknown> {
  const now = context.now.getTime();
  const ids = testObjectIds;
  const customer = { id: ids.customer, referenceId: testCustomerReferenceId };
  const payoutPage = (status: string, subStatus: string) => ({
    id: ids.payoutPage,
    status,
    'sub-status': subStatus,
    amount: 12_345,
    fundingCurrency: 'USDC',
    clientReferenceId: testClientReferenceId,
    releaseMethod: 'MANUAL',
    customer,
    merchant: { id: context.merchantId, livemode: context.livemode },
    url: `${context.publicUrl}/payout-page/${ids.payoutPage}`,
    metadata: {},
    expiresAt: now + 7 * dayMs,
    createdAt: now - 60_000,
    updatedAt: now,
  });
  switch (type) {
    case 'PAYMENT_SUCCEEDED':
      return {
        pageId: ids.paymentPage,
        paymentId: ids.payment,
        clientReferenceId: testClientReferenceId,
        amount: 2500,
        currency: 'USD',
        customer,
        payinDetails: { amount: 2500, currency: 'USD', type: 'CARD', scheme: 'VISA', last4: '4242', cardType: 'CREDIT', bin: '424242', issuer: 'Paysail Test Bank' },
      };
    case 'PAYMENT_EXPIRED':
      return { pageId: ids.paymentPage, clientReferenceId: testClientReferenceId };
    case 'FRAUD_REPORTED':
      return { pageId: ids.paymentPage, clientReferenceId: testClientReferenceId, fraudReportId: ids.payment, fraudReason: 'Test event: no fraud was reported' };
    case 'ENTITLEMENT_CREATED': {
      const startPeriod = now;
      const endPeriod = now + 30 * dayMs;
      return {
        id: ids.entitlement,
        createdAt: now,
        subscriptionId: ids.subscription,
        productId: 'paysail-test-product',
        invoiceId: ids.invoice,
        livemode: context.livemode,
        customerId: ids.customer,
        merchantId: context.merchantId,
        startPeriod,
        endPeriod,
        idempotencyKey: `${ids.subscription}-${startPeriod}-${endPeriod}`,
      };
    }
    case 'DISPUTE_CREATED':
    case 'DISPUTE_CLOSED':
      return {
        id: ids.dispute,
        paymentPageId: ids.paymentPage,
        paymentId: ids.payment,
        amount: 2500,
        currency: 'USD',
        reason: 'FRAUDULENT',
        status: type === 'DISPUTE_CREATED' ? 'NEEDS_RESPONSE' : 'LOST',
        evidenceDueBy: now + 7 * dayMs,
        createdAt: now - (type === 'DISPUTE_CREATED' ? 0 : 3 * dayMs),
        livemode: context.livemode,
        clientReferenceId: testClientReferenceId,
      };
    case 'PAYOUT_PAGE_UPDATED':
      return {
        ...payoutPage('PENDING', 'AWAITING_RELEASE'),
        customerConfirmedAt: now,
        payoutMethod: { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' },
        previousStatus: 'CREATED',
        previousSubStatus: 'AWAITING_CUSTOMER',
      };
    case 'PAYOUT_PAGE_LOCKED':
    case 'PAYOUT_PAGE_REISSUED':
      return {
        ...payoutPage('CREATED', 'AWAITING_CUSTOMER'),
        ...(type === 'PAYOUT_PAGE_LOCKED' ? { lockedAt: now } : {}),
      };
    case 'CUSTOMER_ERASED':
      return { id: ids.customer, referenceId: testCustomerReferenceId, erasedAt: now };
    case 'PAYMENT_REFUNDED':
    case 'REFUND_FAILED':
      return {
        id: ids.refund,
        paymentPageId: ids.paymentPage,
        paymentId: ids.payment,
        amount: 1000,
        currency: 'USD',
        reason: 'REQUESTED_BY_CUSTOMER',
        status: type === 'PAYMENT_REFUNDED' ? 'SUCCEEDED' : 'FAILED',
        ...(type === 'REFUND_FAILED' ? { failureReason: 'declined_by_issuer' } : {}),
        createdAt: now - 60_000,
        livemode: context.livemode,
        clientReferenceId: testClientReferenceId,
      };
  }
}
