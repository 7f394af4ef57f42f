import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded } from '../../helpers/assertions.ts';
import { getPage, pageEmails, payoutEvents } from '../../helpers/payout-pages.ts';
import { kycReviewCalls, openKycReviewSuite } from '../../helpers/kyc-review.ts';
import { kycReviews, kycVerifications } from '../../../src/db/schema/index.ts';

describe('POST /v1/customers/:id/kyc_review: the merchant decides what the provider could not (sandbox lastName "Review")', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    ({ context, merchant, other } = await openKycReviewSuite());
  });
  after(async () => context.close());

  const { review, readCustomer, queue, pageInReview } = kycReviewCalls(() => ({ context, merchant }));

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
});
