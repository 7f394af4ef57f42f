import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AsyncResource } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { queryRows } from '../../../src/db/client.ts';
import { createIdempotencyHooks } from '../../../src/http/idempotency.ts';
import type { RefundView } from '../../../src/modules/refunds/index.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { createPage as createPayoutPage } from '../../helpers/payout-pages.ts';
import { paidPage, postRefund, readPage, type RefundBody } from '../../helpers/refunds.ts';

/** What the database holds for one page's refunds: rows, their ledger transactions and entries, their jobs. */
async function writtenFor(context: TestContext, pageId: string) {
  const [row] = await queryRows<{ refunds: number; total: number; transactions: number; debited: number; entries: number; jobs: number }>(
    context.database.db,
    sql`with r as (select id, amount from refunds where payment_page_id = ${pageId})
        select (select count(*) from r)::int as refunds, (select coalesce(sum(amount), 0) from r)::int as total,
               (select count(*) from ledger_transactions t join r on t.reference = r.id where t.kind = 'refund')::int as transactions,
               (select coalesce(sum(-e.amount), 0) from ledger_entries e join ledger_transactions t on t.id = e.transaction_id join ledger_accounts a on a.id = e.account_id join r on t.reference = r.id where a.kind = 'available')::int as debited,
               (select count(*) from ledger_entries e join ledger_transactions t on t.id = e.transaction_id join r on t.reference = r.id)::int as entries,
               (select count(*) from jobs j join r on j.dedupe_key = 'refunds.process:' || r.id)::int as jobs`,
  );
  assert.ok(row);
  return row;
}

describe('refunds of one page written together (group commit, decision 0055)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('a refund with an Idempotency-Key commits with its key\'s mark: a key taken over while it runs leaves nothing written, the first refund of an idle page included', async () => {
    const merchant: TestMerchant = await context.createMerchant();
    const page = await paidPage(context, merchant, { amount: 800, currency: 'EUR' });
    // Inside the refund's statement, another "retry" takes the key over (a new lease): the mark must
    // be refused and the refund roll back with it (decision 0004). A refund written without the
    // request's guard would commit here, and a retry after a crash would refund twice.
    await context.database.db.execute(sql`
      create or replace function steal_refund_key() returns trigger language plpgsql as $$
      begin
        update idempotency_keys set locked_until = locked_until + interval '1 hour' where key = 'refund-stolen';
        return new;
      end $$`);
    await context.database.db.execute(sql`create trigger steal_refund_key after insert on refunds for each row execute function steal_refund_key()`);
    try {
      const stolen = await postRefund(context, merchant, { paymentPageId: page.id, amount: 300 }, { headers: { 'idempotency-key': 'refund-stolen' } });
      assert.equal(stolen.statusCode, 409, stolen.body);
      assert.equal(json<{ errorCode: string }>(stolen).errorCode, 'IDEMPOTENCY_KEY_IN_USE');
    } finally {
      await context.database.db.execute(sql`drop trigger steal_refund_key on refunds`);
    }
    const written = await writtenFor(context, page.id);
    assert.deepEqual({ refunds: written.refunds, transactions: written.transactions, jobs: written.jobs }, { refunds: 0, transactions: 0, jobs: 0 }, 'nothing of the refund survived the refused mark');
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 0);
  });

  test('a key whose lease is taken over inside a batch of several keyed refunds rolls the whole batch back: that refund answers 409 and nothing of it is written, the others are made alone, each with its key marked', async () => {
    const merchant: TestMerchant = await context.createMerchant();
    const owner = await context.platform.services.merchants.getMerchant(merchant.id);
    const page = await paidPage(context, merchant, { amount: 10_000, currency: 'EUR' });
    const credited = await balanceOf(context.database, merchant.id, false, 'EUR');
    // The real Idempotency-Key hook claims each key (in the database) and runs the request on in its
    // commit guard's async context; the refunds are then started in one tick from those contexts, so
    // the first is written alone and the seven after it wait and share one statement (through HTTP,
    // PGlite answers each statement before the next request reaches the queue, so no batch forms).
    const hooks = createIdempotencyHooks({ database: context.database, clock: context.clock, keyRing: context.keyRing });
    const amounts = [2, 2, 2, 7, 2, 2, 2, 2];
    const keyOf = (index: number) => (amounts[index] === 7 ? `batch-stolen-${page.id}` : `batch-${page.id}-${index}`);
    const starts = await Promise.all(
      amounts.map(
        (amount, index) =>
          new Promise<() => Promise<RefundView>>((resolve, reject) => {
            const body = { paymentPageId: page.id, amount };
            const request = { method: 'POST', url: '/v1/refunds?livemode=false', headers: { 'idempotency-key': keyOf(index) }, query: { livemode: false }, body, auth: { merchant: owner } };
            hooks.preHandler(request as unknown as FastifyRequest, {} as FastifyReply, (error?: Error) => {
              if (error) {
                reject(error);
                return;
              }
              resolve(AsyncResource.bind(() => context.platform.services.refunds.createRefund(owner, false, body)));
            });
          }),
      ),
    );
    // Inside the batch's statement (only one that writes several refunds, the 7 among them), a retry
    // takes the key of the 7 over (a new lease), and notes the batch's size in a sequence (`setval`
    // is never rolled back). Its commit guard must then refuse and roll the whole batch back.
    await context.database.db.execute(sql`create sequence refund_batch_steals minvalue 0 start 0`);
    await context.database.db.execute(sql`
      create or replace function steal_key_in_batch() returns trigger language plpgsql as $$
      begin
        if (select count(*) from inserted) > 1 and exists (select 1 from inserted where amount = 7) then
          update idempotency_keys set locked_until = locked_until + interval '1 hour' where key like 'batch-stolen-%';
          perform setval('refund_batch_steals', (select count(*) from inserted));
        end if;
        return null;
      end $$`);
    await context.database.db.execute(sql`create trigger steal_key_in_batch after insert on refunds referencing new table as inserted for each statement execute function steal_key_in_batch()`);
    let outcomes: Array<PromiseSettledResult<RefundView>>;
    try {
      outcomes = await Promise.allSettled(starts.map((start) => start()));
    } finally {
      await context.database.db.execute(sql`drop trigger steal_key_in_batch on refunds`);
      await context.database.db.execute(sql`drop function steal_key_in_batch()`);
    }
    const [seen] = await queryRows<{ last_value: number; is_called: boolean }>(context.database.db, sql`select last_value::int as last_value, is_called from refund_batch_steals`);
    await context.database.db.execute(sql`drop sequence refund_batch_steals`);
    assert.deepEqual(seen, { last_value: 7, is_called: true }, 'the 7 was written in a batch of the seven refunds after the first, and its key was taken over there');

    for (const [index, outcome] of outcomes.entries()) {
      if (amounts[index] === 7) {
        assert.equal(outcome.status, 'rejected');
        assert.equal((outcome.reason as { code?: string }).code, 'IDEMPOTENCY_KEY_IN_USE', String(outcome.reason));
      } else {
        assert.equal(outcome.status, 'fulfilled', outcome.status === 'rejected' ? String(outcome.reason) : '');
        assert.equal(outcome.value.amount, 2);
      }
    }
    // Nothing of the 7 survived: without the rollback the batch would have committed it (and the
    // six others' refunds once more when made alone) with the 7's key unmarked.
    const [sevens] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from refunds where payment_page_id = ${page.id} and amount = 7`);
    assert.equal(sevens?.count, 0, 'no refund of 7 was written');
    assert.deepEqual(await writtenFor(context, page.id), { refunds: 7, total: 14, transactions: 7, debited: 14, entries: 14, jobs: 7 });
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 14);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'EUR')).available, credited.available - 14);
    // Each refund made alone committed with its own key's mark; the taken-over key holds the new lease, unmarked.
    const keys = await queryRows<{ key: string; state: string }>(context.database.db, sql`select key, state from idempotency_keys where merchant_id = ${merchant.id} and key like ${`batch-%${page.id}%`}`);
    assert.deepEqual(
      keys.map((row) => [row.key, row.state]).sort(([a], [b]) => String(a).localeCompare(String(b))),
      amounts.map((_, index) => [keyOf(index), amounts[index] === 7 ? 'in_progress' : 'committed']).sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  });

  test('44 refunds at once, amounts that overflow the payment, some omitted, half with an Idempotency-Key: the answers and totals agree exactly, and every key replays its answer', async () => {
    const merchant: TestMerchant = await context.createMerchant();
    const page = await paidPage(context, merchant, { amount: 5000, currency: 'EUR' });
    const credited = await balanceOf(context.database, merchant.id, false, 'EUR');
    const asked: Array<number | undefined> = [];
    for (let index = 0; index < 40; index += 1) {
      asked.push([700, 300, 1, 50, 999, 2500, 5001, 450][index % 8]);
    }
    asked.splice(7, 0, undefined);
    asked.splice(21, 0, undefined);
    asked.splice(33, 0, undefined);
    asked.push(undefined);
    const requests = asked.map((amount, index) => ({
      body: { paymentPageId: page.id, ...(amount === undefined ? {} : { amount }), reason: 'REQUESTED_BY_CUSTOMER' },
      headers: index % 2 === 0 ? { 'idempotency-key': `group-${page.id}-${index}` } : undefined,
    }));
    const answers = await Promise.all(requests.map((request) => postRefund(context, merchant, request.body, request.headers ? { headers: request.headers } : {})));

    const made = answers.filter((answer) => answer.statusCode === 200).map((answer) => json<{ data: RefundBody }>(answer).data);
    const total = made.reduce((sum, refund) => sum + refund.amount, 0);
    // Three omitted amounts and more asked than paid: the payment ends fully refunded, never beyond.
    assert.equal(total, 5000, answers.map((answer) => answer.statusCode).join(','));
    assert.ok(made.length >= 2, 'several refunds fit');
    assert.equal(new Set(made.map((refund) => refund.id)).size, made.length);
    for (const refund of made) {
      assert.deepEqual([refund.paymentPageId, refund.currency, refund.status, refund.livemode, refund.reason], [page.id, 'EUR', 'PENDING', false, 'REQUESTED_BY_CUSTOMER']);
    }
    const left = (index: number) => {
      const answer = answers[index];
      assert.ok(answer);
      assert.equal(answer.statusCode, 400, answer.body);
      assert.equal(json(answer).errorCode, 'WRONG_PARAMETER');
      return String(json(answer).errorMessage);
    };
    for (const [index, amount] of asked.entries()) {
      if (answers[index]?.statusCode === 200) {
        const refund = json<{ data: RefundBody }>(answers[index]).data;
        if (amount !== undefined) {
          assert.equal(refund.amount, amount);
        }
        continue;
      }
      const message = left(index);
      if (amount === undefined) {
        assert.match(message, /^amount must be at most what is left to refund on payment page \S+, and nothing is left \(5000 of 5000 refunded or being refunded\)$/);
      } else {
        // Refused with what was left at its turn: less than it asked for.
        const stated = /: (\d+) EUR minor units$/.exec(message);
        assert.ok(stated, message);
        assert.ok(Number(stated[1]) < amount && Number(stated[1]) >= 0, message);
      }
    }
    assert.ok(asked.filter((amount, index) => amount === undefined && answers[index]?.statusCode === 200).length <= 1, 'at most one "all that is left"');

    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 5000);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'EUR')).available, credited.available - 5000);
    assert.deepEqual(await writtenFor(context, page.id), { refunds: made.length, total: 5000, transactions: made.length, debited: 5000, entries: made.length * 2, jobs: made.length });

    // Each key answers what its request got, written or refused.
    for (const [index, request] of requests.entries()) {
      if (!request.headers) {
        continue;
      }
      const replay = await postRefund(context, merchant, request.body, { headers: request.headers });
      assert.equal(replay.statusCode, answers[index]?.statusCode);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, answers[index]?.body);
    }
    assert.deepEqual(await writtenFor(context, page.id), { refunds: made.length, total: 5000, transactions: made.length, debited: 5000, entries: made.length * 2, jobs: made.length });
  });

  test('30 refunds at once against a balance smaller than the payment: those the balance cannot cover answer 409 INSUFFICIENT_FUNDS, smaller ones after them still fit', async () => {
    const merchant = await context.createMerchant();
    const page = await paidPage(context, merchant, { amount: 2000, currency: 'USD' });
    // The opening 1,000,000.00 USD and 1,500 of the payment reserved by payout pages: 500 available.
    await createPayoutPage(context, merchant, { amount: 100_000_000, fundingCurrency: 'USD' });
    await createPayoutPage(context, merchant, { amount: 1500, fundingCurrency: 'USD' });
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, 500);
    const asked = Array.from({ length: 30 }, (_, index) => (index % 3 === 2 ? 30 : 100));
    const answers = await Promise.all(asked.map((amount) => postRefund(context, merchant, { paymentPageId: page.id, amount })));

    const made = answers.filter((answer) => answer.statusCode === 200).map((answer) => json<{ data: RefundBody }>(answer).data);
    const total = made.reduce((sum, refund) => sum + refund.amount, 0);
    const available = (await balanceOf(context.database, merchant.id, false, 'USD')).available;
    assert.equal(available, 500 - total);
    assert.ok(total <= 500 && total >= 470, `taken ${total}`);
    for (const [index, answer] of answers.entries()) {
      if (answer.statusCode === 200) {
        continue;
      }
      assert.equal(answer.statusCode, 409, answer.body);
      assert.equal(json(answer).errorCode, 'INSUFFICIENT_FUNDS');
      // Refused only when what was left of the balance could not cover it: more than is left now.
      assert.ok((asked[index] ?? 0) > available, `${asked[index]} refused with ${available} left`);
    }
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, total);
    assert.deepEqual(await writtenFor(context, page.id), { refunds: made.length, total, transactions: made.length, debited: total, entries: made.length * 2, jobs: made.length });
  });

  test('two platforms on one database (two processes), 24 refunds each in one tick: each writes its own batches, the row lock orders them, totals exact on both backends', async () => {
    const second = await createTestContext({ database: context.database, clock: context.clock });
    try {
      const merchant = await context.createMerchant();
      const page = await paidPage(context, merchant, { amount: 3000, currency: 'GBP' });
      const credited = await balanceOf(context.database, merchant.id, false, 'GBP');
      const owner = await context.platform.services.merchants.getMerchant(merchant.id);
      const asked = Array.from({ length: 48 }, (_, index) => [400, 90, 1, 1200][index % 4] as number);
      // Called in one tick: the first of each platform is written alone, the others wait for the next statement together.
      const outcomes = await Promise.allSettled(
        asked.map((amount, index) => (index % 2 === 0 ? context : second).platform.services.refunds.createRefund(owner, false, { paymentPageId: page.id, amount })),
      );
      const total = outcomes.reduce((sum, outcome) => sum + (outcome.status === 'fulfilled' ? outcome.value.amount : 0), 0);
      const made = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      assert.ok(total <= 3000 && made >= 3, `taken ${total} in ${made}`);
      for (const [index, outcome] of outcomes.entries()) {
        if (outcome.status === 'fulfilled') {
          assert.equal(outcome.value.amount, asked[index]);
        } else {
          const error = outcome.reason as { code?: string; message?: string };
          assert.equal(error.code, 'WRONG_PARAMETER', String(error.message));
          // Refused only when it did not fit in what was left at its turn, which is at least what is left now.
          assert.ok((asked[index] ?? 0) > 3000 - total, `${asked[index]} refused with ${3000 - total} left`);
        }
      }
      assert.equal((await readPage(context, merchant, page.id)).refundedAmount, total);
      assert.equal((await balanceOf(context.database, merchant.id, false, 'GBP')).available, credited.available - total);
      assert.deepEqual(await writtenFor(context, page.id), { refunds: made, total, transactions: made, debited: total, entries: made * 2, jobs: made });
    } finally {
      await second.close();
    }
  });
});
