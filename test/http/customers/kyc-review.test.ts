import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, type CustomerData } from '../../helpers/assertions.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage, fullKyc, getPage, pageEmails, payoutEvents, uniqueReference } from '../../helpers/payout-pages.ts';
import { kycReviews, kycVerifications } from '../../../src/db/schema/index.ts';

describe('KYC review queue: the merchant decides what the provider could not (sandbox lastName "Review")', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
  });
  after(async () => context.close());

  const review = (customerId: string, body: unknown, who: TestMerchant = merchant) =>
    context.request({ method: 'POST', url: `/v1/customers/${customerId}/kyc_review?livemode=false`, apiKey: who.apiKey, body });
  const readCustomer = async (id: string) => assertSucceeded<CustomerData & { kycReason?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${id}?livemode=false`, apiKey: merchant.apiKey }));
  const queue = async (who: TestMerchant = merchant) => assertSucceeded<{ reviews: Array<Record<string, unknown>> }>(await context.request({ method: 'GET', url: '/v1/kyc_reviews?livemode=false', apiKey: who.apiKey })).reviews;

  /** A payout page whose customer's verification is in review: the page waits in PENDING/KYC_IN_REVIEW. */
  async function pageInReview(releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC') {
    const page = await createPage(context, merchant, { releaseMethod, customer: { referenceId: uniqueReference('customer'), email: 'ada@example.com' } });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod, kyc: { ...fullKyc, lastName: 'Review' } });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await advanceAndDrain(context);
    const waiting = await getPage(context, merchant, page.id);
    assert.equal(`${waiting.status}/${waiting['sub-status']}`, 'PENDING/KYC_IN_REVIEW');
    return { page, customerId: waiting.customer.id };
  }

  test('in review: listed (no PII), the customer PENDING with a kycReason; approving moves the waiting page on with its event, audited', async () => {
    const { page, customerId } = await pageInReview('AUTOMATIC');
    const customer = await readCustomer(customerId);
    assert.equal(customer.kycStatus, 'PENDING');
    assert.match(String(customer.kycReason), /manual review/);
    const listed = (await queue()).find((item) => item.customerId === customerId);
    assert.ok(listed, 'the verification is in the queue');
    assert.equal(listed.provider, 'sandbox-kyc');
    assert.deepEqual(listed.breakdown, { sandbox_rules: 'review' });
    assert.doesNotMatch(JSON.stringify(listed), /Ada|Review"|1990-12-10|Market St|4155550123|555-0123/, 'no personal data in the queue');
    assert.equal((await queue(other)).some((item) => item.customerId === customerId), false, "another merchant's queue does not show it");

    const before = context.clock.now().getTime();
    const approved = await review(customerId, { decision: 'APPROVED', reason: 'Checked the passport on a call' });
    assert.deepEqual(assertSucceeded(approved), { customerId, kycStatus: 'APPROVED' });
    assert.equal((await readCustomer(customerId)).kycStatus, 'APPROVED');
    assert.equal((await readCustomer(customerId)).kycReason, undefined);
    assert.equal((await queue()).some((item) => item.customerId === customerId), false);
    const moved = await getPage(context, merchant, page.id);
    assert.equal(`${moved.status}/${moved['sub-status']}`, 'PROCESSING/SUBMITTED');
    const events = (await payoutEvents(context, page.id)).map((event) => `${event.data.previousSubStatus} → ${event.data['sub-status']}`);
    assert.deepEqual(events.slice(-2), ['KYC_IN_REVIEW → AWAITING_RELEASE', 'AWAITING_RELEASE → SUBMITTED']);
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template.includes('processing')), 'the processing e-mail is sent');

    const [audit] = await context.database.db.select().from(kycReviews).where(eq(kycReviews.customerId, customerId));
    assert.equal(audit?.decision, 'APPROVED');
    assert.equal(audit?.reason, 'Checked the passport on a call');
    assert.match(String(audit?.actor), /^api:/);
    assert.equal(audit?.createdAt.getTime(), before);
    const [verification] = await context.database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId));
    assert.equal(verification?.decidedBy, 'merchant');

    const again = await review(customerId, { decision: 'REJECTED', reason: 'changed my mind' });
    assert.equal(again.statusCode, 409);
    assert.equal(json(again).errorCode, 'INVALID_STATE');
    assert.equal((await context.database.db.select().from(kycReviews).where(eq(kycReviews.customerId, customerId))).length, 1);
  });

  test('rejecting fails the waiting page with KYC_REJECTED (event and e-mail); kycReason does not repeat the merchant\'s words', async () => {
    const { page, customerId } = await pageInReview('MANUAL');
    assertSucceeded(await review(customerId, { decision: 'REJECTED', reason: 'Name does not match the bank account' }));
    const customer = await readCustomer(customerId);
    assert.equal(customer.kycStatus, 'REJECTED');
    assert.equal(customer.kycReason, 'rejected by the merchant after a manual review');
    const failed = await getPage(context, merchant, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, 'FAILED/KYC_REJECTED');
    assert.equal((await payoutEvents(context, page.id)).at(-1)?.data.previousSubStatus, 'KYC_IN_REVIEW');
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template.includes('failed')), 'the failure e-mail is sent');
  });

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

  test("unknown or another merchant's customer → 404; malformed input → 400 WRONG_PARAMETER naming the field, nothing written", async () => {
    const { customerId } = await pageInReview();
    assert.equal((await review('cus_unknown', { decision: 'APPROVED', reason: 'x' })).statusCode, 404);
    const foreign = await review(customerId, { decision: 'APPROVED', reason: 'x' }, other);
    assert.equal(foreign.statusCode, 404);
    assert.equal(json(foreign).errorCode, 'NOT_FOUND');
    const liveMode = await context.request({ method: 'POST', url: `/v1/customers/${customerId}/kyc_review?livemode=true`, apiKey: merchant.apiKey, body: { decision: 'APPROVED', reason: 'x' } });
    assert.notEqual(liveMode.statusCode, 200, 'a sandbox customer is not decided in live mode');

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
