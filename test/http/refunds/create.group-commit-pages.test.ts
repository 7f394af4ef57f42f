import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import type { RefundView } from '../../../src/modules/refunds/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { paidPage, readPage } from '../../helpers/refunds.ts';

/** What one statement wrote at most: refunds, their merchants, their pages (kept in sequences, which no rollback resets). */
async function watchStatements(context: TestContext): Promise<() => Promise<{ refunds: number; merchants: number; pagesBeyondMerchants: number }>> {
  for (const name of ['refund_stmt_rows', 'refund_stmt_merchants', 'refund_stmt_extra_pages']) {
    await context.database.db.execute(sql.raw(`create sequence ${name} minvalue 0 start 0`));
  }
  await context.database.db.execute(sql`
    create or replace function watch_refund_statements() returns trigger language plpgsql as $$
    declare
      n int; m int; p int;
    begin
      select count(*), count(distinct merchant_id), count(distinct payment_page_id) into n, m, p from inserted;
      perform setval('refund_stmt_rows', greatest(n, (select last_value from refund_stmt_rows)));
      perform setval('refund_stmt_merchants', greatest(m, (select last_value from refund_stmt_merchants)));
      perform setval('refund_stmt_extra_pages', greatest(p - m, (select last_value from refund_stmt_extra_pages)));
      return null;
    end $$`);
  await context.database.db.execute(sql`create trigger watch_refund_statements after insert on refunds referencing new table as inserted for each statement execute function watch_refund_statements()`);
  return async () => {
    await context.database.db.execute(sql`drop trigger watch_refund_statements on refunds`);
    await context.database.db.execute(sql`drop function watch_refund_statements()`);
    const [row] = await queryRows<{ refunds: number; merchants: number; pagesBeyondMerchants: number }>(
      context.database.db,
      sql`select (select last_value from refund_stmt_rows)::int as refunds, (select last_value from refund_stmt_merchants)::int as merchants,
                 (select last_value from refund_stmt_extra_pages)::int as "pagesBeyondMerchants"`,
    );
    for (const name of ['refund_stmt_rows', 'refund_stmt_merchants', 'refund_stmt_extra_pages']) {
      await context.database.db.execute(sql.raw(`drop sequence ${name}`));
    }
    assert.ok(row);
    return row;
  };
}

describe('refunds of different merchants\' pages written together (group commit across pages, decision 0069)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('refunds of six merchants (two pages each) started in one tick share statements, never two pages of one merchant in one; each answers as it would alone, errors included, and the totals are exact', async () => {
    const merchants: TestMerchant[] = [];
    for (let index = 0; index < 6; index += 1) {
      merchants.push(await context.createMerchant());
    }
    const currencies = ['EUR', 'USD'] as const;
    const pages = new Map<string, Array<{ id: string; currency: string }>>();
    for (const merchant of merchants) {
      const own: Array<{ id: string; currency: string }> = [];
      for (const currency of currencies) {
        const page = await paidPage(context, merchant, { amount: 1000, currency });
        own.push({ id: page.id, currency });
      }
      pages.set(merchant.id, own);
    }
    const credited = new Map<string, number>();
    for (const merchant of merchants) {
      for (const currency of currencies) {
        credited.set(`${merchant.id}|${currency}`, (await balanceOf(context.database, merchant.id, false, currency)).available);
      }
    }
    const unpaid = await createPage(context, merchants[0] as TestMerchant, { amount: 500, currency: 'EUR' });

    type Ask = { merchant: TestMerchant; pageId: string; amount: number | undefined; expect: 'made' | 'amount' | 'not_found' | 'invalid_state' };
    const asks: Ask[] = [];
    // Interleaved: merchant by merchant, then page by page, so that the requests waiting at once
    // belong to several merchants and several pages of each.
    for (let round = 0; round < 4; round += 1) {
      for (const [index, merchant] of merchants.entries()) {
        const own = pages.get(merchant.id) ?? [];
        const page = own[(round + index) % 2] as { id: string };
        asks.push({ merchant, pageId: page.id, amount: [300, 250, 200, 100][round], expect: 'made' });
      }
    }
    // Per page at most 300 + 250 + 200 + 100 = 850 of the 1000 asked twice over two rounds each:
    // each page gets two of the rounds' amounts, so each fits; then refunds that cannot fit or have no page.
    asks.push({ merchant: merchants[1] as TestMerchant, pageId: (pages.get((merchants[1] as TestMerchant).id) ?? [])[0]?.id ?? '', amount: 999, expect: 'amount' });
    asks.push({ merchant: merchants[2] as TestMerchant, pageId: (pages.get((merchants[3] as TestMerchant).id) ?? [])[0]?.id ?? '', amount: 1, expect: 'not_found' });
    asks.push({ merchant: merchants[0] as TestMerchant, pageId: unpaid.id, amount: 1, expect: 'invalid_state' });
    asks.push({ merchant: merchants[4] as TestMerchant, pageId: (pages.get((merchants[4] as TestMerchant).id) ?? [])[1]?.id ?? '', amount: undefined, expect: 'made' });

    const owners = new Map<string, Awaited<ReturnType<typeof context.platform.services.merchants.getMerchant>>>();
    for (const merchant of merchants) {
      owners.set(merchant.id, await context.platform.services.merchants.getMerchant(merchant.id));
    }
    const finish = await watchStatements(context);
    let outcomes: Array<PromiseSettledResult<RefundView>>;
    try {
      // In one tick: the first two are written alone (the statements a process runs at once), the
      // others wait and are written together by the next statements.
      outcomes = await Promise.allSettled(
        asks.map((ask) => context.platform.services.refunds.createRefund(owners.get(ask.merchant.id) as NonNullable<ReturnType<typeof owners.get>>, false, { paymentPageId: ask.pageId, ...(ask.amount === undefined ? {} : { amount: ask.amount }) })),
      );
    } finally {
      const seen = await finish();
      assert.ok(seen.merchants >= 3, `one statement wrote refunds of ${seen.merchants} merchants (at most ${seen.refunds} refunds)`);
      assert.equal(seen.pagesBeyondMerchants, 0, 'no statement wrote refunds of two pages of one merchant');
    }

    const taken = new Map<string, number>();
    for (const [index, outcome] of outcomes.entries()) {
      const ask = asks[index] as Ask;
      const label = `${index}: ${ask.expect} ${String(ask.amount)}`;
      if (ask.expect === 'made') {
        assert.equal(outcome.status, 'fulfilled', outcome.status === 'rejected' ? `${label}: ${String(outcome.reason)}` : label);
        const refund = (outcome as PromiseFulfilledResult<RefundView>).value;
        assert.equal(refund.paymentPageId, ask.pageId, label);
        assert.equal(refund.status, 'PENDING', label);
        if (ask.amount !== undefined) {
          assert.equal(refund.amount, ask.amount, label);
        }
        taken.set(ask.pageId, (taken.get(ask.pageId) ?? 0) + refund.amount);
        continue;
      }
      assert.equal(outcome.status, 'rejected', label);
      const error = (outcome as PromiseRejectedResult).reason as { code?: string; message?: string };
      const code = { amount: 'WRONG_PARAMETER', not_found: 'NOT_FOUND', invalid_state: 'INVALID_STATE' }[ask.expect];
      assert.equal(error.code, code, `${label}: ${String(error.message)}`);
    }
    // The omitted amount took all that was left of its page: that page ends fully refunded.
    const emptied = asks.at(-1) as Ask;
    assert.equal(taken.get(emptied.pageId), 1000);

    for (const merchant of merchants) {
      for (const page of pages.get(merchant.id) ?? []) {
        const refunded = taken.get(page.id) ?? 0;
        assert.equal((await readPage(context, merchant, page.id)).refundedAmount, refunded, page.id);
        const [written] = await queryRows<{ refunds: number; total: number; transactions: number; jobs: number }>(
          context.database.db,
          sql`select count(*)::int as refunds, coalesce(sum(r.amount), 0)::int as total,
                     (select count(*) from ledger_transactions t join refunds x on t.reference = x.id where x.payment_page_id = ${page.id} and t.kind = 'refund')::int as transactions,
                     (select count(*) from jobs j join refunds x on j.dedupe_key = 'refunds.process:' || x.id where x.payment_page_id = ${page.id})::int as jobs
              from refunds r where r.payment_page_id = ${page.id} and r.merchant_id = ${merchant.id}`,
        );
        assert.ok(written);
        assert.equal(written.total, refunded, page.id);
        assert.equal(written.transactions, written.refunds, page.id);
        assert.equal(written.jobs, written.refunds, page.id);
      }
      for (const currency of currencies) {
        const page = (pages.get(merchant.id) ?? []).find((candidate) => candidate.currency === currency);
        const before = credited.get(`${merchant.id}|${currency}`) ?? 0;
        assert.equal((await balanceOf(context.database, merchant.id, false, currency)).available, before - (taken.get(page?.id ?? '') ?? 0), `${merchant.id} ${currency}`);
      }
    }
  });
});
