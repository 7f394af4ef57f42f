import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { FormClient, hiddenFields, visibleText } from '../helpers/browser.ts';
import { advanceAndDrain, bankMethod, closePayoutPageSuite, confirmPage, createPage, fullKyc, getPage, latestCode, openPayoutPageSuite, rejectedBankMethod, type PayoutPageData } from '../helpers/payout-pages.ts';
import { payoutAttempts } from '../../src/db/schema/index.ts';

describe('hosted payout page: other details after a rejected or returned payout', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(() => closePayoutPageSuite(context, { quietLogs: true }));

  async function failedPage(accountNumber: string, expected: string): Promise<PayoutPageData> {
    const page = await createPage(context, merchant, { amount: 2_500 });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: { ...bankMethod, accountNumber }, kyc: fullKyc })).statusCode, 200);
    for (let step = 0; step < 3; step += 1) {
      await advanceAndDrain(context);
    }
    const failed = await getPage(context, merchant, page.id);
    assert.equal(`${failed.status}/${failed['sub-status']}`, expected);
    return failed;
  }

  /** The customer proves access from the status page's "Enter other details" link. */
  async function verifiedForRetry(page: PayoutPageData): Promise<FormClient> {
    const client = new FormClient(context.app);
    const status = await client.get(`/payout-page/${page.id}`);
    assert.ok(status.body.includes(`href="/payout-page/${page.id}?step=retry"`), 'the status page offers other details');
    const start = await client.get(`/payout-page/${page.id}?step=retry`);
    assert.ok(visibleText(start.body).includes('code'), 'the code is asked for first');
    context.clock.advance(31_000);
    const sent = await client.post(`/payout-page/${page.id}/code`, {});
    assert.equal(sent.statusCode, 303);
    const verify = await client.get(String(sent.headers.location));
    assert.ok(visibleText(verify.body).includes('6-digit code'), 'the code form, not the status page');
    const done = await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, `/payout-page/${page.id}?step=retry`);
    return client;
  }

  test('returned: the status page says so; new bank details are reviewed, confirmed and paid in a second attempt', async () => {
    const page = await failedPage('88880003', 'FAILED/PAYOUT_RETURNED');
    const before = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.ok(visibleText(before.body).includes('The payout was returned'));
    const client = await verifiedForRetry(page);
    const methods = await client.get(`/payout-page/${page.id}?step=retry`);
    assert.equal(methods.statusCode, 200);
    assert.ok(visibleText(methods.body).includes('Where should we send it instead? The last payout could not be delivered.'), 'the retry says why it asks again');
    assert.equal(methods.body.includes('step=decline'), false, 'no decline offered: a failed payout is past declining');
    const form = await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    assert.ok(form.body.includes('name="routingNumber"'), 'the bank details form');
    assert.ok(form.body.includes('name="accountNumberConfirmation"'), 'the account number entered twice here too');
    assert.equal(form.body.includes('step=decline'), false);
    const review = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000555666777', accountNumberConfirmation: '000555666777', accountType: 'CHECKING' });
    assert.equal(review.statusCode, 200, review.body);
    assert.ok(visibleText(review.body).includes('•••• 6777'));
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'PAYOUT_RETURNED', 'nothing is stored at review');
    const token = client.csrfToken();
    const confirm = await client.post(
      `/payout-page/${page.id}/confirm`,
      hiddenFields(review.body),
    );
    assert.equal(confirm.statusCode, 303, confirm.body);
    const processing = await getPage(context, merchant, page.id);
    assert.equal(`${processing.status}/${processing['sub-status']}`, 'PROCESSING/SUBMITTED');
    assert.equal(processing.payoutMethod?.last4, '6777');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    const attempts = await context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, page.id));
    assert.equal(attempts.length, 2);
    const paid = await client.get(`/payout-page/${page.id}?step=retry`);
    assert.ok(visibleText(paid.body).includes('You’ve been paid'), 'a paid page offers nothing more');
    assert.equal(paid.body.includes('?step=retry'), false);
    // The same sealed details posted again after payment (a resubmission).
    const late = await client.post(
      `/payout-page/${page.id}/confirm`,
      { _csrf: token, ...hiddenFields(review.body) },
      { csrf: false },
    );
    assert.equal(late.statusCode, 303, 'other details after payment go back to the status page');
    assert.equal((await getPage(context, merchant, page.id)).payoutMethod?.last4, '6777', 'and change nothing');
    const attemptsAfter = await context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, page.id));
    assert.equal(attemptsAfter.length, 2, 'no third attempt: paid once');
  });

  test('rejected: bad new details are named on the form and nothing is written', async () => {
    const page = await failedPage(rejectedBankMethod.accountNumber, 'FAILED/PAYOUT_REJECTED');
    const client = await verifiedForRetry(page);
    await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    const bad = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000022', accountNumber: '000123456789', accountNumberConfirmation: '000123456789', accountType: 'CHECKING' });
    assert.equal(bad.statusCode, 400);
    assert.ok(visibleText(bad.body).toLowerCase().includes('routing number'));
    // The confirm step takes only what the review step sealed for this page: a forged value is refused on the form.
    const forged = await client.post(`/payout-page/${page.id}/confirm`, { type: 'BANK_TRANSFER', sealed: 'v1.forged', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' });
    assert.equal(forged.statusCode, 400);
    assert.ok(visibleText(forged.body).includes('Could not be read: enter the details again'), visibleText(forged.body).slice(0, 400));
    const unchanged = await getPage(context, merchant, page.id);
    assert.equal(`${unchanged.status}/${unchanged['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.equal(unchanged.payoutMethod?.last4, '0002');
  });
});
