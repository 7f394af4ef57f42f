import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, createCustomer } from '../../helpers/assertions.ts';

describe('GET /v1/customers/:customerId (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let customerId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    customerId = (await createCustomer(context, merchant.apiKey)).id;
  });
  after(async () => context.close());

  const get = (path: string) => context.request({ method: 'GET', url: path, apiKey: merchant.apiKey });

  test('an unknown id → 404 NOT_FOUND naming the id', async () => {
    const unknown = `cus_${'0'.repeat(36)}`;
    assertError(await get(`/v1/customers/${unknown}`), 404, 'NOT_FOUND', unknown);
  });

  test('ids of another kind or shape → 404 NOT_FOUND', async () => {
    assertError(await get(`/v1/customers/${merchant.id}`), 404, 'NOT_FOUND');
    assertError(await get('/v1/customers/not-an-id'), 404, 'NOT_FOUND');
    assertError(await get(`/v1/customers/${customerId.toUpperCase()}`), 404, 'NOT_FOUND');
  });

  test('an id longer than any id → 404 envelope (never the router’s own error body)', async () => {
    assertError(await get(`/v1/customers/cus_${'x'.repeat(120)}`), 404, 'NOT_FOUND');
  });

  test('an undecodable id → 400 envelope', async () => {
    assertError(await get('/v1/customers/%E0%A4%A'), 400, 'WRONG_PARAMETER', 'URL');
  });

  test('livemode must be a boolean; unknown query parameters are refused', async () => {
    assertError(await get(`/v1/customers/${customerId}?livemode=maybe`), 400, 'WRONG_PARAMETER', 'livemode');
    assertError(await get(`/v1/customers/${customerId}?include=pii`), 400, 'WRONG_PARAMETER', 'include');
  });

  test('methods without an operation are unknown routes → 404 envelope (GET /v1/customers is the list)', async () => {
    assertError(await context.request({ method: 'DELETE', url: '/v1/customers', apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'PUT', url: '/v1/customers', apiKey: merchant.apiKey, body: {} }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'DELETE', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
  });
});
