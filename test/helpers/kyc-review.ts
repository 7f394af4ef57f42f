import assert from 'node:assert/strict';
import { createTestContext, type TestContext, type TestMerchant } from './context.ts';
import { assertSucceeded, type CustomerData } from './assertions.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage, fullKyc, getPage, uniqueReference } from './payout-pages.ts';

/** A test context with the merchant who reviews and another merchant. */
export async function openKycReviewSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), other: await context.createMerchant() };
}

/**
 * The KYC review queue's calls as the suite's merchant (sandbox lastName "Review" puts a
 * verification in review): `review` (POST /v1/customers/:id/kyc_review), `readCustomer`, `queue`
 * (GET /v1/kyc_reviews) and `pageInReview`, a payout page waiting in PENDING/KYC_IN_REVIEW.
 */
export function kycReviewCalls(current: () => { context: TestContext; merchant: TestMerchant }) {
  const review = (customerId: string, body: unknown, who: TestMerchant = current().merchant) =>
    current().context.request({ method: 'POST', url: `/v1/customers/${customerId}/kyc_review?livemode=false`, apiKey: who.apiKey, body });
  const readCustomer = async (id: string) =>
    assertSucceeded<CustomerData & { kycReason?: string }>(await current().context.request({ method: 'GET', url: `/v1/customers/${id}?livemode=false`, apiKey: current().merchant.apiKey }));
  const queue = async (who: TestMerchant = current().merchant) =>
    assertSucceeded<{ reviews: Array<Record<string, unknown>> }>(await current().context.request({ method: 'GET', url: '/v1/kyc_reviews?livemode=false', apiKey: who.apiKey })).reviews;

  /** A payout page whose customer's verification is in review: the page waits in PENDING/KYC_IN_REVIEW. */
  async function pageInReview(releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC') {
    const { context, merchant } = current();
    const page = await createPage(context, merchant, { releaseMethod, customer: { referenceId: uniqueReference('customer'), email: 'ada@example.com' } });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod, kyc: { ...fullKyc, lastName: 'Review' } });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await advanceAndDrain(context);
    const waiting = await getPage(context, merchant, page.id);
    assert.equal(`${waiting.status}/${waiting['sub-status']}`, 'PENDING/KYC_IN_REVIEW');
    return { page, customerId: waiting.customer.id };
  }

  return { review, readCustomer, queue, pageInReview };
}
