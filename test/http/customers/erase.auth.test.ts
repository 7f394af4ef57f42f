import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.ts';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { customerEmailCall, openCustomerRightsSuite } from '../../helpers/customers.ts';

describe('POST /v1/customers/:id/erase: one merchant', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let customerId: string;

  before(async () => ({ context, merchant, other, customerId } = await openCustomerRightsSuite('erase-ref-1', 'kept@example.org')));
  after(async () => context.close());

  const email = customerEmailCall(() => ({ context, merchant }));

  test('another merchant’s customer → 404, nothing erased', async () => {
    assertError(await context.request({ method: 'POST', url: `/v1/customers/${customerId}/erase`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
    assert.equal(await email(customerId), 'kept@example.org', "another merchant's erase wrote nothing");
  });
});
