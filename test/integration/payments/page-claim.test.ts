import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { paymentPages } from '../../../src/db/schema/index.ts';
import { AppError } from '../../../src/http/errors.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { createPageExpiry } from '../../../src/modules/payment-pages/expiry.ts';
import { createPagePayment } from '../../../src/modules/payment-pages/pay.ts';
import { createPageReads } from '../../../src/modules/payment-pages/read.ts';
import { pageResponse } from '../../../src/modules/payment-pages/view.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage } from '../../helpers/payment-pages.ts';

/**
 * The claim on a payment page (payment-pages/pay.ts) when its conditional UPDATE takes nothing: the
 * refusal names why, from the page as it reads afterwards. The module's own parts over the real
 * database; the one race (the page payable again by the time it is read) is made deterministic by
 * claiming with a `now` past the page's expiry while the clock still reads before it.
 */
describe('payment pages: a claim that takes nothing', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let pagePayment: ReturnType<typeof createPagePayment>;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    const { database, clock, keyRing } = context;
    const payments = context.platform.services.payments;
    const { requireView } = createPageReads({ database, payments });
    const toResponse = (view: Parameters<typeof pageResponse>[2]) => pageResponse(keyRing, 'http://paysail.test', view);
    const { expireInTransaction } = createPageExpiry({ database, clock, payments, requireView, toResponse });
    pagePayment = createPagePayment({ database, clock, payments, requireView, expireInTransaction, toResponse });
  });
  after(async () => context.close());

  test('a page payable again when read answers INVALID_STATE with Retry-After, and nothing is recorded', async () => {
    const page = await createPage(context, merchant);
    const [row] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
    assert.ok(row);
    const pastExpiry = new Date(row.expiresAt.getTime() + 1000);
    const refusal = await pagePayment.claim(page.id, newId('payment', Date.now()), pastExpiry, null).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof AppError, String(refusal));
    assert.equal(refusal.code, 'INVALID_STATE');
    assert.match(refusal.message, /cannot be paid right now; retry in a second/);
    assert.deepEqual(refusal.headers, { 'Retry-After': '1' });
    const [after] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
    assert.equal(after?.attemptPaymentId, null, 'no claim was left on the page');
    assert.equal(after?.status, 'CREATED');
  });

  test('a page with an attempt in progress names it, with Retry-After 2', async () => {
    const page = await createPage(context, merchant);
    const now = context.clock.now();
    await pagePayment.claim(page.id, newId('payment', now.getTime()), now, null);
    const second = await pagePayment.claim(page.id, newId('payment', now.getTime()), now, null).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(second instanceof AppError, String(second));
    assert.match(second.message, /in progress; retry in a few seconds/);
    assert.deepEqual(second.headers, { 'Retry-After': '2' });
  });
});
