import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Paysail, operations, sdkVersion, webhookEventTypes, type OperationKey, type Operations, type Query, type WebhookEvent, type WebhookEventType } from '@paysail/sdk';
import { listOperations, renderGeneratedSources, type OpenApiDocument } from '../scripts/sources.ts';
import { documentPath, generatedDirectory, packageRoot } from '../scripts/paths.ts';

const regenerate = 'run `npm run generate -w @paysail/sdk` and commit the result';

function committedDocument(): OpenApiDocument {
  return JSON.parse(fs.readFileSync(documentPath, 'utf8')) as OpenApiDocument;
}

test('the generated code is exactly what openapi-typescript and the operation table make of the committed document', async () => {
  const expected = await renderGeneratedSources(committedDocument());
  const present = fs.readdirSync(generatedDirectory).sort();
  assert.deepEqual(present, [...expected.keys()].sort(), `unexpected files in src/generated; ${regenerate}`);
  for (const [name, text] of expected) {
    assert.ok(fs.readFileSync(path.join(generatedDirectory, name), 'utf8') === text, `src/generated/${name} is stale; ${regenerate}`);
  }
});

/**
 * One client call per operation. Typed as a Record over every generated operation key, so adding a
 * route to the server (and regenerating) fails type-checking here until the client exposes it.
 */
const callsByOperation: Record<OperationKey, (client: Paysail) => Promise<unknown>> = {
  'POST /v1/customers': (client) => client.customers.create({ referenceId: 'r', signupAt: 1 }),
  'GET /v1/customers': (client) => client.customers.list({ kycStatus: 'APPROVED', limit: 5 }),
  'GET /v1/customers/{customerId}': (client) => client.customers.retrieve('cus_1'),
  'POST /v1/customers/{customerId}': (client) => client.customers.update('cus_1', { email: 'a@example.com' }),
  'POST /v1/customers/{customerId}/erase': (client) => client.customers.erase('cus_1'),
  'GET /v1/customers/{customerId}/export': (client) => client.customers.export('cus_1'),
  'POST /v1/customers/{customerId}/kyc_review': (client) => client.customers.decideKycReview('cus_1', { decision: 'APPROVED', reason: 'documents checked' }),
  'GET /v1/kyc_reviews': (client) => client.kycReviews.list(),
  'GET /v1/balance': (client) => client.balance.retrieve(),
  'POST /v1/test_helpers/balance/fund': (client) => client.testHelpers.balance.fund({ amount: 1, currency: 'USDC' }),
  'POST /v1/payout_pages': (client) =>
    client.payoutPages.create({ amount: 1, fundingCurrency: 'USDC', clientReferenceId: 'c', releaseMethod: 'MANUAL', customer: { referenceId: 'r', email: 'a@example.com' } }),
  'GET /v1/payout_pages': (client) => client.payoutPages.list({ status: 'CREATED', limit: 5 }),
  'GET /v1/payout_pages/{payoutPageId}': (client) => client.payoutPages.retrieve('payout_page_1'),
  'POST /v1/payout_pages/{payoutPageId}/release': (client) => client.payoutPages.release('payout_page_1'),
  'POST /v1/payout_pages/{payoutPageId}/cancel': (client) => client.payoutPages.cancel('payout_page_1'),
  'POST /v1/payout_pages/{payoutPageId}/reissue': (client) => client.payoutPages.reissue('payout_page_1'),
  'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm': (client) => client.testHelpers.payoutPages.confirm('payout_page_1', { payoutMethod: { type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'x' } }),
  'POST /v1/test_helpers/payout_pages/{payoutPageId}/decline': (client) => client.testHelpers.payoutPages.decline('payout_page_1'),
  'GET /v1/events': (client) => client.events.list({ limit: 5 }),
  'GET /v1/events/{eventId}': (client) => client.events.retrieve('evt_1'),
  'POST /v1/events/{eventId}/redeliver': (client) => client.events.redeliver('evt_1'),
  'GET /v1/webhook_endpoints': (client) => client.webhookEndpoints.list(),
  'POST /v1/webhook_endpoints': (client) => client.webhookEndpoints.create({ url: 'https://example.com/hook' }),
  'GET /v1/webhook_endpoints/{endpointId}': (client) => client.webhookEndpoints.retrieve('we_1'),
  'POST /v1/webhook_endpoints/{endpointId}': (client) => client.webhookEndpoints.update('we_1', { url: 'https://example.com/other' }),
  'DELETE /v1/webhook_endpoints/{endpointId}': (client) => client.webhookEndpoints.delete('we_1'),
  'POST /v1/webhook_endpoints/{endpointId}/rotate_secret': (client) => client.webhookEndpoints.rotateSecret('we_1'),
  'POST /v1/webhook_endpoints/{endpointId}/test': (client) => client.webhookEndpoints.sendTestEvent('we_1', { eventType: 'PAYMENT_SUCCEEDED' }),
  'GET /v1/webhook_deliveries': (client) => client.webhookDeliveries.list(),
  'GET /v1/webhook_deliveries/{deliveryId}': (client) => client.webhookDeliveries.retrieve('whd_1'),
  'POST /v1/payment_pages': (client) => client.paymentPages.create({ amount: 1, currency: 'USD', clientReferenceId: 'c', customer: { referenceId: 'r', email: 'a@example.com' } }),
  'GET /v1/payment_pages': (client) => client.paymentPages.list({ status: 'PAID', limit: 5 }),
  'GET /v1/payment_pages/{pageId}': (client) => client.paymentPages.retrieve('page_1'),
  'POST /v1/payment_pages/{pageId}/expire': (client) => client.paymentPages.expire('page_1'),
  'POST /v1/test_helpers/payment_pages/{pageId}/pay': (client) =>
    client.testHelpers.paymentPages.pay('page_1', { cardNumber: '4242424242424242', expMonth: 1, expYear: 2040, cvc: '123', cardholderName: 'A' }),
  'GET /v1/disputes': (client) => client.disputes.list({ paymentPageId: 'page_1', limit: 5 }),
  'GET /v1/disputes/{disputeId}': (client) => client.disputes.retrieve('dp_1'),
  'POST /v1/test_helpers/disputes/{disputeId}/close': (client) => client.testHelpers.disputes.close('dp_1', { outcome: 'WON' }),
  'POST /v1/refunds': (client) => client.refunds.create({ paymentPageId: 'page_1', amount: 100, reason: 'DUPLICATE' }),
  'GET /v1/refunds': (client) => client.refunds.list({ paymentPageId: 'page_1', limit: 5 }),
  'GET /v1/refunds/{refundId}': (client) => client.refunds.retrieve('re_1'),
  'GET /v1/fraud_reports': (client) => client.fraudReports.list({ pagination: { offset: 0, limit: 1 } }),
  'GET /v1/fraud_reports/{id}': (client) => client.fraudReports.retrieve('pay_1'),
  'POST /v1/test_helpers/fraud_reports': (client) => client.testHelpers.fraudReports.create({ paymentId: 'pay_1', fraudReason: 'x' }),
  'GET /v1/subscriptions': (client) => client.subscriptions.list({ status: 'ACTIVE', limit: 5 }),
  'GET /v1/subscriptions/{subscriptionId}': (client) => client.subscriptions.retrieve('sub_1'),
  'POST /v1/subscriptions/{subscriptionId}/cancel': (client) => client.subscriptions.cancel('sub_1'),
  'POST /v1/test_helpers/subscriptions/{subscriptionId}/renew': (client) => client.testHelpers.subscriptions.renew('sub_1'),
  'GET /v1/entitlements': (client) => client.entitlements.list({ limit: 1 }),
};

function templateMatches(template: string, pathname: string): boolean {
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(pathname);
}

test('every /v1 operation of the document is reachable from the client, with its own method and path', async () => {
  const documentKeys = listOperations(committedDocument()).map((operation) => operation.key);
  assert.deepEqual(Object.keys(operations).sort(), [...documentKeys].sort(), `the generated table lacks operations; ${regenerate}`);
  assert.deepEqual(Object.keys(callsByOperation).sort(), [...documentKeys].sort());
  assert.ok(documentKeys.length >= 34, `only ${documentKeys.length} operations in the document`);

  for (const key of documentKeys as OperationKey[]) {
    const seen: Array<{ method: string; url: URL }> = [];
    const client = new Paysail({
      apiKey: 'sk_test',
      baseUrl: 'http://sdk.invalid',
      livemode: false,
      fetch: async (input, init) => {
        seen.push({ method: init?.method ?? 'GET', url: new URL(String(input)) });
        const body = operations[key].envelope ? { status: 'SUCCEEDED', data: {} } : { entitlements: [], hasMore: false };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await callsByOperation[key](client);
    assert.equal(seen.length, 1, key);
    const [method, template] = key.split(' ') as [string, string];
    assert.equal(seen[0]?.method, method, key);
    assert.ok(templateMatches(template, seen[0]?.url.pathname ?? ''), `${key} sent ${seen[0]?.url.pathname}`);
    assert.equal(seen[0]?.url.searchParams.get('livemode'), 'false', `${key} carries the client's livemode`);
  }
});

/** The lists that page (their answer has `hasMore`): each must have an iterator, by type and at run time. */
type PagedOperationKey = { [K in OperationKey]: K extends `GET ${string}` ? (Operations[K]['result'] extends { hasMore: boolean } ? K : never) : never }[OperationKey];

interface IteratorCase {
  walk: (client: Paysail) => AsyncIterable<unknown>;
  /** The page's array of items. */
  items: string;
  /** What the first page says about the next one. */
  more: Record<string, unknown>;
  /** The query parameter the second request must carry, and its value. */
  follows: [string, string];
  /** That parameter on the first request (default: absent). */
  starts?: string;
}

const byCursor = (items: string): Omit<IteratorCase, 'walk'> => ({ items, more: { nextCursor: 'cursor_1' }, follows: ['startingAfter', 'cursor_1'] });

const iteratorsByList: Record<PagedOperationKey, IteratorCase> = {
  'GET /v1/customers': { walk: (client) => client.customers.iterate({ kycStatus: 'APPROVED' }), ...byCursor('customers') },
  'GET /v1/payout_pages': { walk: (client) => client.payoutPages.iterate({ status: 'CREATED' }), ...byCursor('payoutPages') },
  'GET /v1/payment_pages': { walk: (client) => client.paymentPages.iterate({ status: 'PAID' }), ...byCursor('paymentPages') },
  'GET /v1/subscriptions': { walk: (client) => client.subscriptions.iterate({ status: 'ACTIVE' }), ...byCursor('subscriptions') },
  'GET /v1/events': { walk: (client) => client.events.iterate({ type: 'PAYMENT_SUCCEEDED' }), ...byCursor('events') },
  'GET /v1/refunds': { walk: (client) => client.refunds.iterate({ paymentPageId: 'page_1' }), ...byCursor('refunds') },
  'GET /v1/disputes': { walk: (client) => client.disputes.iterate({ paymentPageId: 'page_1' }), ...byCursor('disputes') },
  'GET /v1/webhook_deliveries': { walk: (client) => client.webhookDeliveries.iterate({ status: 'FAILED' }), ...byCursor('deliveries') },
  'GET /v1/entitlements': { walk: (client) => client.entitlements.iterate({ isActive: true }), items: 'entitlements', more: { nextPageToken: 'token_1' }, follows: ['cursorToken', 'token_1'] },
  'GET /v1/fraud_reports': { walk: (client) => client.fraudReports.iterate({ pagination: { limit: 1 } }), items: 'checkoutFraudReports', more: { count: 2 }, follows: ['pagination[offset]', '1'], starts: '0' },
};

test('every list that pages has an iterator that follows its cursor to the last page', async () => {
  const paged = listOperations(committedDocument()).filter(({ method, operation }) => {
    const body = operation.responses?.['200']?.content?.['application/json']?.schema;
    const page = body?.properties?.data?.properties ?? body?.properties;
    return method === 'GET' && page !== undefined && 'hasMore' in page;
  });
  assert.deepEqual(Object.keys(iteratorsByList).sort(), paged.map(({ key }) => key).sort());
  assert.ok(paged.length >= 10, `only ${paged.length} paged lists`);

  for (const [key, { walk, items, more, follows, starts }] of Object.entries(iteratorsByList) as Array<[PagedOperationKey, IteratorCase]>) {
    const seen: URL[] = [];
    const client = new Paysail({
      apiKey: 'sk_test',
      baseUrl: 'http://sdk.invalid',
      fetch: async (input) => {
        seen.push(new URL(String(input)));
        const first = seen.length === 1;
        const page = { [items]: [{ id: first ? 'item_1' : 'item_2' }], hasMore: first, ...(first ? more : {}) };
        const body = operations[key].envelope ? { status: 'SUCCEEDED', data: page } : page;
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const walked: unknown[] = [];
    for await (const item of walk(client)) {
      walked.push(item);
    }
    assert.deepEqual(walked, [{ id: 'item_1' }, { id: 'item_2' }], key);
    assert.equal(seen.length, 2, `${key} stops after the page without hasMore`);
    assert.equal(seen[1]?.searchParams.get(follows[0]), follows[1], `${key} asks for the next page with ${follows[0]}`);
    assert.equal(seen[0]?.searchParams.get(follows[0]), starts ?? null, `${key} starts at the first page`);
  }
});

/** Every event type of the document, by type: a new one fails type-checking here until it is listed. */
const everyEventType: Record<WebhookEventType, true> = {
  PAYOUT_PAGE_UPDATED: true,
  PAYMENT_SUCCEEDED: true,
  PAYMENT_EXPIRED: true,
  FRAUD_REPORTED: true,
  ENTITLEMENT_CREATED: true,
  PAYMENT_REFUNDED: true,
  REFUND_FAILED: true,
  DISPUTE_CREATED: true,
  DISPUTE_CLOSED: true,
  CUSTOMER_ERASED: true,
  PAYOUT_PAGE_LOCKED: true,
  PAYOUT_PAGE_REISSUED: true,
};

test('the webhook event types are the webhooks section of the document', () => {
  const documented = Object.keys(committedDocument().webhooks ?? {});
  assert.deepEqual([...webhookEventTypes].sort(), documented.sort());
  assert.deepEqual(Object.keys(everyEventType).sort(), documented.sort());
});

/** `webhooks.verify` answers a union discriminated by `type`: each branch's `data` is that event's payload. Compile-time only. */
export function webhookEventsAreTyped(event: WebhookEvent): string | number {
  switch (event.type) {
    case 'FRAUD_REPORTED':
      return event.data.fraudReportId;
    case 'PAYMENT_SUCCEEDED':
      // @ts-expect-error a payment carries no fraud report id
      void event.data.fraudReportId;
      return event.data.amount;
    case 'CUSTOMER_ERASED':
      return event.data.erasedAt;
    default:
      return event.id;
  }
}

/** Bracket-named query parameters nest, typed as the document types them. Compile-time only. */
export function nestedQueriesAreTyped(): Array<Query<'GET /v1/fraud_reports'>> {
  return [
    { pagination: { offset: 0, limit: 10 }, filters: { fraudIssueDateRange: { start: '2026-11-01 00:00:00' } } },
    // @ts-expect-error offset is a number
    { pagination: { offset: 'first' } },
    // @ts-expect-error no such filter
    { filters: { amount: 1 } },
  ];
}

test('the User-Agent version is the package version', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(sdkVersion, manifest.version);
});

/**
 * Compile-time checks (`npx tsc`): each line must be a type error, or tsc reports the unused
 * directive. Never called at run time.
 */
export function rejectedByTheTypes(client: Paysail): void {
  // @ts-expect-error amount is an integer, not a string
  void client.payoutPages.create({ amount: '1', fundingCurrency: 'USDC', clientReferenceId: 'c', releaseMethod: 'MANUAL', customer: { referenceId: 'r', email: 'e' } });
  // @ts-expect-error releaseMethod is required
  void client.payoutPages.create({ amount: 1, fundingCurrency: 'USDC', clientReferenceId: 'c', customer: { referenceId: 'r', email: 'e' } });
  // @ts-expect-error currency is USD, EUR or GBP
  void client.paymentPages.create({ amount: 1, currency: 'JPY', clientReferenceId: 'c', customer: { referenceId: 'r', email: 'e' } });
  // @ts-expect-error reason is REQUESTED_BY_CUSTOMER, DUPLICATE or FRAUDULENT
  void client.refunds.create({ paymentPageId: 'page_1', reason: 'CHANGED_MIND' });
  // @ts-expect-error unknown body field
  void client.customers.update('cus_1', { nickname: 'new' });
  // @ts-expect-error sort is asc or desc
  void client.entitlements.list({ sort: 'newest' });
  // @ts-expect-error no such operation
  void client.request('GET /v1/payouts', {});
  // @ts-expect-error path parameters are required
  void client.request('GET /v1/customers/{customerId}', {});
  // @ts-expect-error an optional body is omitted, not null
  void client.request('POST /v1/events/{eventId}/redeliver', { pathParams: { eventId: 'evt_1' }, body: null });
  // @ts-expect-error a GET takes no body
  void client.request('GET /v1/balance', { body: {} });
}
