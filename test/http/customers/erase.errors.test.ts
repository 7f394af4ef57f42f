import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../../helpers/assertions.ts';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { customerEmailCall, openCustomerRightsSuite } from '../../helpers/customers.ts';
import { createPage as createPayoutPage } from '../../helpers/payout-pages.ts';

describe('POST /v1/customers/:id/erase: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let customerId: string;

  before(async () => ({ context, merchant, customerId } = await openCustomerRightsSuite('erase-ref-1', 'kept@example.org')));
  after(async () => context.close());

  const email = customerEmailCall(() => ({ context, merchant }));

  test('an unknown id → 404, nothing erased', async () => {
    assertError(await context.request({ method: 'POST', url: `/v1/customers/cus_${'0'.repeat(36)}/erase`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assert.equal(await email(customerId), 'kept@example.org', 'the merchant’s customer is untouched');
  });

  test('an open payout page → 409 INVALID_STATE naming it, nothing erased', async () => {
    const open = await createPayoutPage(context, merchant, { customer: { referenceId: 'erase-ref-open', email: 'open@example.com' } });
    const refused = assertError(await context.request({ method: 'POST', url: `/v1/customers/${open.customer.id}/erase`, apiKey: merchant.apiKey }), 409, 'INVALID_STATE');
    assert.match(refused.errorMessage, new RegExp(open.id));
    assert.equal(await email(open.customer.id), 'open@example.com', 'nothing of the refused erase was written');
  });
});
