import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, type CustomerData } from '../../helpers/assertions.ts';
import { advanceAndDrain, fullKyc, uniqueReference } from '../../helpers/payout-pages.ts';
import { kycReviewCalls, openKycReviewSuite } from '../../helpers/kyc-review.ts';
import { kycReviews } from '../../../src/db/schema/index.ts';

describe('POST /v1/customers/:id/kyc_review: refused', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    ({ context, merchant } = await openKycReviewSuite());
  });
  after(async () => context.close());

  const { review, readCustomer, queue, pageInReview } = kycReviewCalls(() => ({ context, merchant }));

  test('not in review → 409 INVALID_STATE: approved, still checking, or never started', async () => {
    const ids: string[] = [];
    for (const body of [{ ...fullKyc }, { ...fullKyc, lastName: 'Documents' }, {}]) {
      const created = assertSucceeded<CustomerData>(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: uniqueReference('c'), signupAt: 1_700_000_000_000, ...body } }));
      ids.push(created.id);
    }
    const [checking] = ids;
    const stillChecking = await review(String(checking), { decision: 'APPROVED', reason: 'x' });
    assert.equal(stillChecking.statusCode, 409, 'the provider has not answered yet');
    await advanceAndDrain(context);
    for (const id of ids) {
      const response = await review(id, { decision: 'APPROVED', reason: 'looks fine' });
      assert.equal(response.statusCode, 409, id);
      assert.equal(json(response).errorCode, 'INVALID_STATE');
    }
    assert.equal((await readCustomer(String(ids[1]))).kycStatus, 'PENDING', 'a step-up is not decided by a review');
  });

  test('an unknown customer → 404; malformed input → 400 WRONG_PARAMETER naming the field, nothing written', async () => {
    const { customerId } = await pageInReview();
    assert.equal((await review('cus_unknown', { decision: 'APPROVED', reason: 'x' })).statusCode, 404);

    const malformed: Array<[unknown, string]> = [
      [{ decision: 'MAYBE', reason: 'x' }, 'decision'],
      [{ reason: 'x' }, 'decision'],
      [{ decision: 'APPROVED' }, 'reason'],
      [{ decision: 'APPROVED', reason: '' }, 'reason'],
      [{ decision: 'APPROVED', reason: 'x'.repeat(501) }, 'reason'],
      [{ decision: 'APPROVED', reason: 'x', extra: 1 }, 'extra'],
      [{ decision: 'APPROVED', reason: 42 }, 'reason'],
    ];
    for (const [body, field] of malformed) {
      const response = await review(customerId, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(json(response).errorCode, 'WRONG_PARAMETER');
      assert.match(String(json(response).errorMessage), new RegExp(field), JSON.stringify(body));
    }
    const blank = await review(customerId, { decision: 'APPROVED', reason: '   ' });
    assert.equal(blank.statusCode, 400, 'a reason of spaces is no reason');
    assert.equal((await context.database.db.select().from(kycReviews).where(eq(kycReviews.customerId, customerId))).length, 0, 'nothing written');
    assert.equal((await readCustomer(customerId)).kycStatus, 'PENDING');
    assert.ok((await queue()).some((item) => item.customerId === customerId), 'still in review');
  });
});
