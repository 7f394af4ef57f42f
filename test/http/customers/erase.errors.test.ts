import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, assertSucceeded } from '../../helpers/assertions.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage as createPayoutPage } from '../../helpers/payout-pages.ts';

describe('POST /v1/customers/:id/erase: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
  });
  after(async () => context.close());

  const email = async (customerId: string) => assertSucceeded<{ email?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey })).email;

  test('a foreign or unknown id → 404, nothing erased', async () => {
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'erase-ref-1', signupAt: context.clock.now().getTime(), email: 'kept@example.org' } });
    const customerId = assertSucceeded<{ id: string }>(created).id;
    assertError(await context.request({ method: 'POST', url: `/v1/customers/${customerId}/erase`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'POST', url: `/v1/customers/cus_${'0'.repeat(36)}/erase`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assert.equal(await email(customerId), 'kept@example.org', "another merchant's erase wrote nothing");
  });

  test('an open payout page → 409 INVALID_STATE naming it, nothing erased', async () => {
    const open = await createPayoutPage(context, merchant, { customer: { referenceId: 'erase-ref-open', email: 'open@example.com' } });
    const refused = assertError(await context.request({ method: 'POST', url: `/v1/customers/${open.customer.id}/erase`, apiKey: merchant.apiKey }), 409, 'INVALID_STATE');
    assert.match(refused.errorMessage, new RegExp(open.id));
    assert.equal(await email(open.customer.id), 'open@example.com', 'nothing of the refused erase was written');
  });
});
