import { after, before, describe, test } from 'node:test';
import { assertError, assertSucceeded } from '../../helpers/assertions.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';

describe('GET /v1/customers/:id/export: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let customerId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'export-ref-1', signupAt: context.clock.now().getTime(), email: 'export.me@example.org' } });
    customerId = assertSucceeded<{ id: string }>(created).id;
  });
  after(async () => context.close());

  test('another merchant’s or an unknown id → 404', async () => {
    assertError(await context.request({ method: 'GET', url: `/v1/customers/${customerId}/export`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}/export`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
  });
});
