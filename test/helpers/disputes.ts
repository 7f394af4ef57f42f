import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { assertLedgerInvariants } from './ledger.ts';
import { createPage, payPage, type PageBody } from './payment-pages.ts';

/** The sandbox card whose payments are disputed. */
export const disputeCard = '4000000000000259';

export interface Dispute {
  id: string;
  paymentPageId: string | null;
  paymentId: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  evidenceDueBy: number | null;
  createdAt: number;
  livemode: boolean;
}

/** A disputes suite's `before`: a test context with a sandbox merchant and another merchant (scoping). */
export async function openDisputeSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), other: await context.createMerchant() };
}

/** A disputes suite's `after`: the ledger still balances, then the context closes. */
export async function closeDisputeSuite(context: TestContext): Promise<void> {
  await assertLedgerInvariants(context.database);
  await context.close();
}

/**
 * The calls of dispute tests, as the suite's merchant unless another owner is given: `current` is read
 * at each call, since the suite's context and merchant are set in `before`.
 */
export function disputeCalls(current: () => { context: TestContext; merchant: TestMerchant }) {
  const context = () => current().context;
  return {
    async availableUsd(owner: TestMerchant = current().merchant): Promise<number> {
      const response = await context().request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: owner.apiKey });
      assert.equal(response.statusCode, 200, response.body);
      const usd = json<{ data: Array<{ currency: string; available: number }> }>(response).data.find((balance) => balance.currency === 'USD');
      assert.ok(usd);
      return usd.available;
    },

    async paid(card: string, amount: number, owner: TestMerchant = current().merchant): Promise<PageBody> {
      const page = await createPage(context(), owner, { amount });
      const response = await payPage(context(), owner, page.id, card);
      assert.equal(response.statusCode, 200, response.body);
      const body = json<{ data: PageBody }>(response).data;
      assert.equal(body.status, 'PAID');
      return body;
    },

    /** The dispute test card's dispute arrives SANDBOX_PAYOUT_DELAY_MS (2 s in tests) after the payment. */
    async disputed(page: PageBody, owner: TestMerchant = current().merchant): Promise<Dispute> {
      context().clock.advance(2_000);
      await context().drainJobs();
      const response = await context().request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}&livemode=false`, apiKey: owner.apiKey });
      assert.equal(response.statusCode, 200, response.body);
      const [dispute, ...more] = json<{ data: { disputes: Dispute[] } }>(response).data.disputes;
      assert.ok(dispute, 'the dispute arrived');
      assert.equal(more.length, 0);
      return dispute;
    },

    close(disputeId: string, outcome: unknown, owner: TestMerchant = current().merchant, query = '?livemode=false') {
      return context().request({ method: 'POST', url: `/v1/test_helpers/disputes/${disputeId}/close${query}`, apiKey: owner.apiKey, body: { outcome } });
    },

    async disputeEvents(disputeId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
      return queryRows(context().database.db, sql`select type, data from events where data->>'id' = ${disputeId} and type like 'DISPUTE_%' order by created_at, id`);
    },

    async ledgerMovements(disputeId: string): Promise<Array<{ kind: string }>> {
      return queryRows(context().database.db, sql`select kind from ledger_transactions where reference = ${disputeId} order by created_at, kind`);
    },
  };
}

/**
 * The list suites' set-up: `openDisputeSuite` plus two disputes of the merchant to page through
 * (4,200 then 1,500), and `everything`, the merchant's test-mode disputes newest first.
 */
export async function openDisputeListSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; everything: Dispute[] }> {
  const suite = await openDisputeSuite();
  const { paid, disputed } = disputeCalls(() => suite);
  for (const amount of [4_200, 1_500]) {
    await disputed(await paid(disputeCard, amount));
  }
  const all = await suite.context.request({ method: 'GET', url: '/v1/disputes?livemode=false', apiKey: suite.merchant.apiKey });
  assert.equal(all.statusCode, 200, all.body);
  return { ...suite, everything: json<{ data: { disputes: Dispute[] } }>(all).data.disputes };
}
