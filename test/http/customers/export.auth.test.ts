import { after, before, describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.ts';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { openCustomerRightsSuite } from '../../helpers/customers.ts';

describe('GET /v1/customers/:id/export: one merchant', () => {
  let context: TestContext;
  let other: TestMerchant;
  let customerId: string;

  before(async () => ({ context, other, customerId } = await openCustomerRightsSuite('export-ref-1', 'export.me@example.org')));
  after(async () => context.close());

  test('another merchant’s customer → 404, exactly like an unknown id', async () => {
    assertError(await context.request({ method: 'GET', url: `/v1/customers/${customerId}/export`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
  });
});
