import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Paysail, operations, sdkVersion, type OperationKey } from '@paysail/sdk';
import { listOperations, renderGeneratedSources, type OpenApiDocument } from '../scripts/codegen.ts';
import { documentPath, generatedDirectory, packageRoot } from '../scripts/paths.ts';

const regenerate = 'run `npm run generate -w @paysail/sdk` and commit the result';

function committedDocument(): OpenApiDocument {
  return JSON.parse(fs.readFileSync(documentPath, 'utf8')) as OpenApiDocument;
}

test('the generated code is exactly what the generator makes of the committed document', () => {
  const expected = renderGeneratedSources(committedDocument());
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
}
