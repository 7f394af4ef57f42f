import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, type CustomerData } from '../../helpers/assertions.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { advanceAndDrain, assertOneEventPerChange, bankMethod, confirmPage, createPage, errorCodeOf, fullKyc, getPage, pageAction, payoutEvents, statusPath, uniqueReference } from '../../helpers/payout-pages.ts';

/**
 * A customer re-verified after an identity change: their MANUAL payouts waiting for release must
 * not go out on the approval that is no longer current. They wait in KYC_IN_REVIEW for the new
 * decision, which moves them as any decision does.
 */
describe('re-verification holds payouts waiting for release', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
  });

  /**
   * An approved customer with a MANUAL page waiting for release: approved by the sandbox provider,
   * or (lastName "Review") by the merchant's review.
   */
  async function approvedCustomerWithWaitingPage(lastName = 'Lovelace') {
    const referenceId = uniqueReference('reverify');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName } });
    const customer = assertSucceeded<CustomerData>(created);
    await advanceAndDrain(context);
    if (lastName === 'Review') {
      assert.equal((await decide(customer.id, 'APPROVED')).statusCode, 200);
    }
    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE');
    return { customer, page };
  }

  function decide(customerId: string, decision: 'APPROVED' | 'REJECTED') {
    return context.request({ method: 'POST', url: `/v1/customers/${customerId}/kyc_review?livemode=false`, apiKey: merchant.apiKey, body: { decision, reason: 'checked by hand' } });
  }

  function update(customerId: string, body: Record<string, unknown>) {
    return context.request({ method: 'POST', url: `/v1/customers/${customerId}?livemode=false`, apiKey: merchant.apiKey, body });
  }

  test('identity changed, new verification approved: the page waits in KYC_IN_REVIEW, cannot be released meanwhile, then waits for release again', async () => {
    const { customer, page } = await approvedCustomerWithWaitingPage();
    assert.equal(assertSucceeded<CustomerData>(await update(customer.id, { address: { line1: '2 Market St' } })).kycStatus, 'PENDING');

    const held = await getPage(context, merchant, page.id);
    assert.equal(`${held.status}/${held['sub-status']}`, 'PENDING/KYC_IN_REVIEW');
    const release = await pageAction(context, merchant, page.id, 'release');
    assert.equal(release.statusCode, 409, 'no release on the stale approval');
    assert.equal(errorCodeOf(release), 'INVALID_STATE');
    const held1 = (await payoutEvents(context, page.id)).at(-1);
    assert.equal(held1?.data.previousSubStatus, 'AWAITING_RELEASE');
    assert.equal(held1?.data['sub-status'], 'KYC_IN_REVIEW');

    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE', 'the new approval moves it back');
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
    assert.deepEqual((await statusPath(context, page.id)).slice(-4), ['PENDING/AWAITING_RELEASE', 'PENDING/KYC_IN_REVIEW', 'PENDING/AWAITING_RELEASE', 'PROCESSING/SUBMITTED']);
  });

  test('identity changed, new verification rejected (by the merchant’s review): the page fails with KYC_REJECTED and its money is released', async () => {
    const { customer, page } = await approvedCustomerWithWaitingPage('Review');
    assert.equal(assertSucceeded<CustomerData>(await update(customer.id, { address: { postalCode: '94107' } })).kycStatus, 'PENDING');
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_IN_REVIEW');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_IN_REVIEW', 'in review again: waits for the merchant');
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 409);
    assert.equal((await decide(customer.id, 'REJECTED')).statusCode, 200);
    const failed = await getPage(context, merchant, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/KYC_REJECTED');
    assert.deepEqual((await payoutEvents(context, page.id)).map((event) => event.data['sub-status']).slice(-2), ['KYC_IN_REVIEW', 'KYC_REJECTED']);
  });

  test('a change the provider never sees (the second address line) neither re-verifies nor holds the page', async () => {
    const { customer, page } = await approvedCustomerWithWaitingPage();
    assert.equal(assertSucceeded<CustomerData>(await update(customer.id, { address: { line2: 'Suite 9' } })).kycStatus, 'APPROVED');
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE');
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
  });
});
