import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { merchants } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { queryRows } from '../../../src/db/client.ts';
import { balanceReader, closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

describe('GET /v1/balance: opening balances', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  const balances = balanceReader(() => context);

  test('a new merchant’s sandbox balance opens with 1,000,000.00 USDC and USD', async () => {
    assert.deepEqual(await balances(merchant.apiKey), [
      { currency: 'USDC', livemode: false, available: 100_000_000, reserved: 0, inFlight: 0 },
      { currency: 'USD', livemode: false, available: 100_000_000, reserved: 0, inFlight: 0 },
    ]);
  });

  test('merchants created before the ledger existed are opened (and funded in sandbox) on first use, exactly once', async () => {
    const now = context.clock.now();
    const id = newId('merchant', now.getTime());
    await context.database.db.insert(merchants).values({ id, name: 'Old merchant', email: `old-${id}@example.com`, liveEnabled: false, fraudReportWebhooksEnabled: false, createdAt: now, updatedAt: now });
    const ledger = context.platform.services.ledger;
    const results = await Promise.all(Array.from({ length: 8 }, () => ledger.getBalances({ merchantId: id, livemode: false })));
    for (const result of results) {
      assert.equal(result[0]?.available, 100_000_000);
    }
    const openings = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from ledger_transactions where merchant_id = ${id} and kind = 'opening'`);
    assert.equal(openings[0]?.count, 2, 'one opening per currency');

    // A payout page of another pre-existing merchant opens its accounts on the way.
    const other = newId('merchant', now.getTime());
    await context.database.db.insert(merchants).values({ id: other, name: 'Older merchant', email: `old-${other}@example.com`, liveEnabled: false, fraudReportWebhooksEnabled: false, createdAt: now, updatedAt: now });
    const key = await context.platform.services.merchants.createApiKey(other, 'test');
    const page = await context.request({
      method: 'POST',
      url: '/v1/payout_pages?livemode=false',
      apiKey: key.apiKey,
      body: { amount: 100, fundingCurrency: 'USD', clientReferenceId: 'first', releaseMethod: 'MANUAL', customer: { referenceId: 'c1', email: 'c1@example.com' } },
    });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal((await balances(key.apiKey))[1]?.available, 100_000_000 - 100);
  });
});
