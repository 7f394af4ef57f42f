import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, openPaymentPageSuite, pageCalls, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { payments } from '../../../src/db/schema/index.ts';

describe('POST /v1/payment_pages/:pageId/expire and expiry at expiresAt: refusals', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { expire, read } = pageCalls(() => ({ context, merchant }));

  test('PAID → 400 WRONG_PARAMETER; nothing changes and no event is recorded', async () => {
    const page = await createPage(context, merchant);
    const paid = json<{ data: PageBody }>(await payPage(context, merchant, page.id, testCards.visaCredit)).data;
    const response = await expire(page.id);
    assert.equal(response.statusCode, 400);
    const failure = json<ErrorBody>(response);
    assert.equal(failure.errorCode, 'WRONG_PARAMETER');
    assert.match(failure.errorMessage, /already PAID/);
    assert.deepEqual(await read(page.id), paid);
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 0);
  });

  test('an EXPIRED page cannot be paid: 409 INVALID_STATE, nothing charged', async () => {
    const page = await createPage(context, merchant);
    await expire(page.id);
    const response = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(response.statusCode, 409);
    assert.equal(json<ErrorBody>(response).errorCode, 'INVALID_STATE');
    assert.equal((await context.database.db.select().from(payments).where(eq(payments.pageId, page.id))).length, 0);
  });

  test('paying after expiresAt, before the job ran: refused, and the page expires then (one event)', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    context.clock.advance(1_000);
    const response = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(response.statusCode, 409);
    assert.match(json<ErrorBody>(response).errorMessage, /EXPIRED/);
    assert.equal((await read(page.id)).status, 'EXPIRED');
    await context.drainJobs();
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
  });
});
