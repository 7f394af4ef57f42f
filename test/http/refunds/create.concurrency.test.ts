import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { paidPage, postRefund, readPage, settleSandboxRefunds } from '../../helpers/refunds.ts';

describe('concurrent refunds never exceed the payment', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('20 refunds of 300 at once on a 2,000 page: exactly 6 succeed, the others answer 400 amount; ledger and refundedAmount agree', async () => {
    const page = await paidPage(context, merchant, { amount: 2000, currency: 'EUR' });
    const credited = await balanceOf(context.database, merchant.id, false, 'EUR');
    const answers = await Promise.all(Array.from({ length: 20 }, () => postRefund(context, merchant, { paymentPageId: page.id, amount: 300 })));
    const accepted = answers.filter((answer) => answer.statusCode === 200);
    const refusedAnswers = answers.filter((answer) => answer.statusCode !== 200);
    assert.equal(accepted.length, 6, answers.map((answer) => answer.statusCode).join(','));
    for (const answer of refusedAnswers) {
      assert.equal(answer.statusCode, 400, answer.body);
      assert.equal(json(answer).errorCode, 'WRONG_PARAMETER');
      assert.match(String(json(answer).errorMessage), /^amount /);
    }
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 1800);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'EUR')).available, credited.available - 1800);
    const [stored] = await queryRows<{ count: number; total: number }>(context.database.db, sql`select count(*)::int as count, coalesce(sum(amount), 0)::int as total from refunds where payment_page_id = ${page.id}`);
    assert.deepEqual(stored, { count: 6, total: 1800 });
  });

  test('20 full refunds (amount omitted) at once: exactly one is made', async () => {
    const page = await paidPage(context, merchant, { amount: 900 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => postRefund(context, merchant, { paymentPageId: page.id })));
    assert.equal(answers.filter((answer) => answer.statusCode === 200).length, 1);
    assert.ok(answers.every((answer) => answer.statusCode === 200 || answer.statusCode === 400), answers.map((answer) => answer.statusCode).join(','));
    await settleSandboxRefunds(context);
    const [stored] = await queryRows<{ count: number; succeeded: number }>(
      context.database.db,
      sql`select count(*)::int as count, count(*) filter (where status = 'SUCCEEDED')::int as succeeded from refunds where payment_page_id = ${page.id}`,
    );
    assert.deepEqual(stored, { count: 1, succeeded: 1 });
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 900);
  });
});
