import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import type { AcknowledgedOperation } from './acknowledged-effects.ts';
import { eventually, unfinishedJobs, type Answer } from './processes-support.ts';
import type { Operation } from './crash-operations.ts';

// The crash harness's end checks (crash.ts): once every process is up again, the system settles,
// and every acknowledged write is there with its effect.

/** One operation of the driver and how it ended. */
export interface Outcome {
  operation: Operation;
  answer: Answer;
  /** 200, or a retry whose 409 shows the unanswered attempt had committed. */
  acknowledged: boolean;
  committedBefore: boolean;
}

/**
 * Waits (until `deadline`, at least 30 s each) for the system to settle: every confirmed payout page
 * PROCESSED, every refund settled and delivered by the bank, every due job finished, every event
 * delivered and every e-mail sent. `diagnose` describes what is stuck when a wait fails.
 */
export async function waitUntilSettled(
  database: Database,
  merchantId: string,
  outcomes: readonly Outcome[],
  options: { bank: { idle(): boolean }; deadline: number; diagnose: () => Promise<string> },
): Promise<void> {
  const { bank, deadline, diagnose } = options;
  const timeout = () => Math.max(30_000, deadline - Date.now());
  const confirmed = outcomes.filter((outcome) => outcome.operation.kind === 'confirmPayoutPage').map((outcome) => String(outcome.operation.targetId));
  await eventually(
    'every confirmed payout page is PROCESSED',
    async () => {
      const rows = await queryRows<{ id: string; status: string }>(database.db, sql`select id, status from payout_pages where merchant_id = ${merchantId}`);
      const status = new Map(rows.map((row) => [row.id, row.status]));
      return confirmed.every((id) => status.get(id) === 'PROCESSED');
    },
    timeout(),
    diagnose,
  );
  await eventually(
    'every refund is settled and the bank has delivered every settlement',
    async () => {
      const [row] = await queryRows<{ pending: number }>(database.db, sql`select count(*)::int as pending from refunds where merchant_id = ${merchantId} and status = 'PENDING'`);
      return row?.pending === 0 && bank.idle();
    },
    timeout(),
    diagnose,
  );
  await eventually('every due job has finished', async () => (await unfinishedJobs(database)).length === 0, timeout(), diagnose);
  await eventually(
    'every event has a succeeded delivery and every e-mail is sent',
    async () => {
      const [row] = await queryRows<{ pending: number; mail: number }>(
        database.db,
        sql`select (select count(*) from events e where not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'SUCCEEDED'))::int as pending,
                   (select count(*) from emails where status <> 'sent')::int as mail`,
      );
      return row?.pending === 0 && row.mail === 0;
    },
    timeout(),
    diagnose,
  );
}

/**
 * Every acknowledged write is there, with its effect: answers the acknowledged operations (for
 * acknowledged-effects.ts) and the refunded amount per payment page (for `assertRefundsOnce`).
 * `findCreated` finds what a create made when its answer was lost.
 */
export async function assertAcknowledgedWrites(
  database: Database,
  merchantId: string,
  outcomes: readonly Outcome[],
  findCreated: (operation: Operation) => Promise<string | undefined>,
): Promise<{ acknowledged: AcknowledgedOperation[]; refunded: Map<string, number> }> {
  const acknowledged: AcknowledgedOperation[] = [];
  const refunded = new Map<string, number>();
  for (const outcome of outcomes) {
    const { operation } = outcome;
    if (operation.kind === 'fundBalance') {
      acknowledged.push({ kind: operation.kind, amount: (operation.body as { amount: number }).amount });
      continue; // no resource: its posting is checked with the other effects below
    }
    if (operation.kind === 'refundPayment') {
      // One refund per page: found by its page (the answer may have been lost); applied once is checked below.
      const pageId = String(operation.targetId);
      const [refund] = await queryRows<{ id: string }>(database.db, sql`select id from refunds where payment_page_id = ${pageId} and merchant_id = ${merchantId}`);
      assert.ok(refund, `the acknowledged refund of page ${pageId} exists`);
      refunded.set(pageId, (operation.body as { amount: number }).amount);
      acknowledged.push({ kind: operation.kind, id: refund.id });
      continue;
    }
    const id = operation.targetId ?? (outcome.answer.body.data as { id?: string } | undefined)?.id ?? (await findCreated(operation));
    assert.ok(id, `${operation.kind}: an id`);
    acknowledged.push({ kind: operation.kind, id });
    const exists = async (table: string, condition = sql`true`) => {
      const rows = await queryRows<{ found: number }>(database.db, sql`select count(*)::int as found from ${sql.identifier(table)} where id = ${id} and merchant_id = ${merchantId} and ${condition}`);
      return rows[0]?.found === 1;
    };
    switch (operation.kind) {
      case 'createCustomer':
        assert.ok(await exists('customers'), `customer ${id} exists`);
        break;
      case 'createPayoutPage':
        assert.ok(await exists('payout_pages'), `payout page ${id} exists`);
        break;
      case 'confirmPayoutPage':
        assert.ok(await exists('payout_pages', sql`status = 'PROCESSED'`), `confirmed payout page ${id} was paid out`);
        break;
      case 'createPaymentPage':
      case 'createSubscription':
        assert.ok(await exists('payment_pages'), `payment page ${id} exists`);
        break;
      case 'payPaymentPage':
      case 'paySubscription':
        assert.ok(await exists('payment_pages', sql`status = 'PAID'`), `paid payment page ${id} is PAID`);
        break;
      case 'renewSubscription':
        assert.ok(await exists('subscriptions', sql`status = 'ACTIVE'`), `renewed subscription ${id} is ACTIVE`);
        break;
    }
  }
  return { acknowledged, refunded };
}

/** Every processed payout has its postings, the same number for each. */
export async function assertPayoutPostings(database: Database, merchantId: string): Promise<void> {
  const payoutPostings = await queryRows<{ id: string; postings: number }>(
    database.db,
    sql`select p.id, (select count(*) from ledger_transactions t where t.reference = p.id)::int as postings from payout_pages p where p.merchant_id = ${merchantId} and p.status = 'PROCESSED'`,
  );
  const postingCounts = new Set(payoutPostings.map((row) => row.postings));
  assert.ok(payoutPostings.every((row) => row.postings >= 2), 'every processed payout has its postings');
  assert.ok(postingCounts.size <= 1, `every processed payout has the same number of postings: ${JSON.stringify(payoutPostings.filter((row) => row.postings !== payoutPostings[0]?.postings))}`);
}
