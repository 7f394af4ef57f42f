import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { closePayoutPageSuite, errorCodeOf, openPayoutPageCreateSuite, pageAction, pageBody, uniqueReference } from '../../helpers/payout-pages.ts';
import { customers, payoutPages } from '../../../src/db/schema/index.ts';
import { queryRows } from '../../../src/db/client.ts';

describe('POST /v1/payout_pages under concurrency', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageCreateSuite()));
  after(async () => closePayoutPageSuite(context));

  test('concurrent creates with one clientReferenceId (and one new customer): exactly one wins', async () => {
    const clientReferenceId = uniqueReference('race');
    const referenceId = uniqueReference('race-customer');
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody({ clientReferenceId, customer: { referenceId, email: 'race@example.com' } }) }),
      ),
    );
    const codes = responses.map((response) => (response.statusCode === 200 ? 'OK' : errorCodeOf(response))).sort();
    assert.deepEqual(codes, [...Array<string>(11).fill('DUPLICATE_CLIENT_REFERENCE_ID'), 'OK']);
    const rows = await context.database.db.select().from(customers).where(eq(customers.referenceId, referenceId));
    assert.equal(rows.length, 1, 'one customer');
    const pages = await context.database.db.select().from(payoutPages).where(eq(payoutPages.clientReferenceId, clientReferenceId));
    assert.equal(pages.length, 1);
  });

  test('concurrent creates never overdraw: exactly as many pages as the balance covers', async () => {
    const fresh = await context.createMerchant();
    const amount = 5_000_000; // 100,000,000 / 5,000,000 = 20 pages fit
    const responses = await Promise.all(
      Array.from({ length: 45 }, () =>
        context.request({
          method: 'POST',
          url: '/v1/payout_pages?livemode=false',
          apiKey: fresh.apiKey,
          body: { amount, fundingCurrency: 'USD', clientReferenceId: uniqueReference('burst'), releaseMethod: 'AUTOMATIC', customer: { referenceId: uniqueReference('c'), email: 'burst@example.com' } },
        }),
      ),
    );
    const outcomes = responses.map((response) => (response.statusCode === 200 ? 'OK' : errorCodeOf(response)));
    assert.equal(outcomes.filter((outcome) => outcome === 'OK').length, 20, outcomes.join(','));
    assert.equal(outcomes.filter((outcome) => outcome === 'INSUFFICIENT_FUNDS').length, 25);
    assert.deepEqual(await balanceOf(context.database, fresh.id, false, 'USD'), { available: 0, reserved: 100_000_000, inFlight: 0, external: -100_000_000 });
    const [pages] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from payout_pages where merchant_id = ${fresh.id}`);
    assert.equal(pages?.count, 20);
    // Cancels racing new creates: freed funds are reused, never double counted.
    const ids = responses.filter((response) => response.statusCode === 200).map((response) => json<{ data: { id: string } }>(response).data.id);
    const mixed = await Promise.all([
      ...ids.slice(0, 10).map((id) => pageAction(context, fresh, id, 'cancel')),
      ...Array.from({ length: 20 }, () =>
        context.request({
          method: 'POST',
          url: '/v1/payout_pages?livemode=false',
          apiKey: fresh.apiKey,
          body: { amount, fundingCurrency: 'USD', clientReferenceId: uniqueReference('burst2'), releaseMethod: 'MANUAL', customer: { referenceId: uniqueReference('c'), email: 'burst@example.com' } },
        }),
      ),
    ]);
    const created = mixed.slice(10).filter((response) => response.statusCode === 200).length;
    assert.ok(mixed.slice(0, 10).every((response) => response.statusCode === 200));
    assert.ok(created <= 10, `${created} created with 10 pages' worth of funds freed`);
    const balance = await balanceOf(context.database, fresh.id, false, 'USD');
    assert.equal(balance.available, (10 - created) * amount);
    assert.equal(balance.reserved, (10 + created) * amount);
  });
});
