import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { kycReviewCalls, openKycReviewSuite } from '../../helpers/kyc-review.ts';
import { kycReviews } from '../../../src/db/schema/index.ts';

describe('POST /v1/customers/:id/kyc_review: one merchant, one mode', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    ({ context, merchant, other } = await openKycReviewSuite());
  });
  after(async () => context.close());

  const { review, readCustomer, queue, pageInReview } = kycReviewCalls(() => ({ context, merchant }));

  test("another merchant's customer → 404 NOT_FOUND; a sandbox customer is not decided in live mode; nothing written", async () => {
    const { customerId } = await pageInReview();
    const foreign = await review(customerId, { decision: 'APPROVED', reason: 'x' }, other);
    assert.equal(foreign.statusCode, 404);
    assert.equal(json(foreign).errorCode, 'NOT_FOUND');
    const liveMode = await context.request({ method: 'POST', url: `/v1/customers/${customerId}/kyc_review?livemode=true`, apiKey: merchant.apiKey, body: { decision: 'APPROVED', reason: 'x' } });
    assert.notEqual(liveMode.statusCode, 200, 'a sandbox customer is not decided in live mode');

    assert.equal((await context.database.db.select().from(kycReviews).where(eq(kycReviews.customerId, customerId))).length, 0, 'nothing written');
    assert.equal((await readCustomer(customerId)).kycStatus, 'PENDING');
    assert.ok((await queue()).some((item) => item.customerId === customerId), 'still in review');
  });
});
