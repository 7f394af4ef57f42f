import { after, before, describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.ts';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { openCustomerRightsSuite } from '../../helpers/customers.ts';

describe('GET /v1/customers/:id/export: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openCustomerRightsSuite('export-ref-1', 'export.me@example.org')));
  after(async () => context.close());

  test('an unknown id → 404', async () => {
    assertError(await context.request({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}/export`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
  });
});
