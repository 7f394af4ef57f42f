import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { openPaymentPageSuite, pageCalls, pageRequest, sampleLineItems } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';

describe('POST /v1/payment_pages: duplicates and invalid input', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { create } = pageCalls(() => ({ context, merchant }));
  const pageCount = async () => (await queryRows<{ n: number }>(context.database.db, sql`select count(*)::int as n from payment_pages where merchant_id = ${merchant.id}`))[0]?.n ?? 0;

  test('clientReferenceId is unique per merchant and mode: 409 DUPLICATE_CLIENT_REFERENCE_ID', async () => {
    const body = pageRequest({ clientReferenceId: 'order-42' });
    assert.equal((await create(body)).statusCode, 200);
    const duplicate = await create(pageRequest({ clientReferenceId: 'order-42' }));
    assert.equal(duplicate.statusCode, 409);
    const failure = json<ErrorBody>(duplicate);
    assert.equal(failure.status, 'FAILED');
    assert.equal(failure.errorCode, 'DUPLICATE_CLIENT_REFERENCE_ID');
    assert.match(failure.requestId, /^req_/);
    // Another merchant, and the other mode of a live merchant, may use it.
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), other.apiKey)).statusCode, 200);
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), live.apiKey, '?livemode=false')).statusCode, 200);
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), live.apiKey, '?livemode=true')).statusCode, 200);
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['amount 0', { amount: 0 }, /^amount /],
    ['amount above 100,000,000', { amount: 100_000_001 }, /^amount /],
    ['fractional amount', { amount: 10.5 }, /^amount must be an integer/],
    ['amount as a string', { amount: '100' }, /^amount must be an integer/],
    ['unsupported currency', { currency: 'JPY' }, /^currency must be one of USD, EUR, GBP/],
    ['empty clientReferenceId', { clientReferenceId: '' }, /^clientReferenceId /],
    ['clientReferenceId over 255', { clientReferenceId: 'x'.repeat(256) }, /^clientReferenceId /],
    ['missing customer', { customer: undefined }, /^customer is required/],
    ['missing customer.email', { customer: { referenceId: 'r' } }, /^customer\.email is required/],
    ['missing customer.referenceId', { customer: { email: 'a@example.com' } }, /^customer\.referenceId is required/],
    ['invalid customer.email', { customer: { referenceId: 'r', email: 'not-an-email' } }, /^customer\.email /],
    ['unknown customer field', { customer: { referenceId: 'r', email: 'a@example.com', name: 'x' } }, /^customer\.name is not a recognised field/],
    ['ftp successReturnUrl', { successReturnUrl: 'ftp://example.com/x' }, /^successReturnUrl must be an absolute http or https URL/],
    ['relative failureReturnUrl', { failureReturnUrl: '/cart' }, /^failureReturnUrl must be an absolute http or https URL/],
    ['expiresAt in the past', { expiresAt: 1_000 }, /^expiresAt must be in the future/],
    ['expiresAt beyond 30 days', { expiresAt: Date.now() + 31 * 24 * 60 * 60 * 1000 }, /^expiresAt must be at most 30 days from now/],
    ['21 metadata entries', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) }, /^metadata must have at most 20 entries/],
    ['metadata key over 40', { metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata keys must be 1-40 characters/],
    ['metadata value not a string', { metadata: { a: 1 } }, /^metadata\.a must be a string/],
    ['subscription interval HOUR', { subscription: { productId: 'p', interval: 'HOUR' } }, /^subscription\.interval must be one of DAY, WEEK, MONTH, YEAR/],
    ['subscription intervalCount 13', { subscription: { productId: 'p', interval: 'DAY', intervalCount: 13 } }, /^subscription\.intervalCount must be at most 12/],
    ['subscription without productId', { subscription: { interval: 'DAY' } }, /^subscription\.productId is required/],
    ['unknown field', { color: 'red' }, /^color is not a recognised field/],
  ];

  for (const [name, overrides, message] of invalid) {
    test(`400 WRONG_PARAMETER: ${name}`, async () => {
      const body = { ...pageRequest(), ...overrides };
      for (const [key, value] of Object.entries(overrides)) {
        if (value === undefined) {
          delete (body as Record<string, unknown>)[key];
        }
      }
      const response = await create(body);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<ErrorBody>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
    });
  }

  test('malformed JSON and non-JSON bodies', async () => {
    const malformed = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: '{"amount":' });
    assert.equal(malformed.statusCode, 400);
    assert.equal(json<ErrorBody>(malformed).errorCode, 'WRONG_PARAMETER');
    const form = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: 'amount=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.statusCode, 415);
  });

  test('bad descriptions and line items are 400 WRONG_PARAMETER naming the field, and nothing is written', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: 16501, lineItems: sampleLineItems }, /^lineItems must add up to amount \(16501\): the lines' quantity × unitAmount add up to 16500/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: 50 }] }, /lineItems/],
      [{ description: 'x'.repeat(501) }, /description/],
      [{ description: '' }, /description/],
      [{ lineItems: [] }, /lineItems/],
      [{ lineItems: Array.from({ length: 101 }, () => ({ name: 'a', quantity: 1, unitAmount: 0 })) }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: '', quantity: 1, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'x'.repeat(201), quantity: 1, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 0, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1.5, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: -100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: 100, sku: 'x' }] }, /lineItems/],
    ];
    const before = await pageCount();
    for (const [overrides, field] of cases) {
      const response = await create(pageRequest(overrides));
      assert.equal(response.statusCode, 400, `${JSON.stringify(overrides).slice(0, 120)}: ${response.body}`);
      const failure = json<{ errorCode: string; errorMessage: string }>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, field);
    }
    assert.equal(await pageCount(), before, 'no page was written');
  });
});
