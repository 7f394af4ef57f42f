import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { merchants } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { queryRows } from '../../../src/db/client.ts';

/** drizzle wraps driver errors ("Failed query: …"); the database's own message is the cause. */
function causedBy(pattern: RegExp) {
  return (error: unknown): boolean => {
    let current: unknown = error;
    while (current instanceof Error) {
      if (pattern.test(current.message)) {
        return true;
      }
      current = current.cause;
    }
    return false;
  };
}

type Balance = { currency: string; livemode: boolean; available: number; reserved: number; inFlight: number };

describe('balance and ledger', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  async function balances(apiKey: string, query = '?livemode=false'): Promise<Balance[]> {
    const response = await context.request({ method: 'GET', url: `/v1/balance${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Balance[] }>(response).data;
  }

  test('a new merchant’s sandbox balance opens with 1,000,000.00 USDC and USD', async () => {
    assert.deepEqual(await balances(merchant.apiKey), [
      { currency: 'USDC', livemode: false, available: 100_000_000, reserved: 0, inFlight: 0 },
      { currency: 'USD', livemode: false, available: 100_000_000, reserved: 0, inFlight: 0 },
    ]);
  });

  test('without livemode: every mode the merchant can use; live starts empty; live for a sandbox-only merchant is 403', async () => {
    assert.deepEqual(
      (await balances(merchant.apiKey, '')).map((balance) => `${balance.livemode}:${balance.currency}`),
      ['false:USDC', 'false:USD'],
    );
    assert.deepEqual(await balances(live.apiKey, '?livemode=true'), [
      { currency: 'USDC', livemode: true, available: 0, reserved: 0, inFlight: 0 },
      { currency: 'USD', livemode: true, available: 0, reserved: 0, inFlight: 0 },
    ]);
    assert.equal((await balances(live.apiKey, '')).length, 4);
    const forbidden = await context.request({ method: 'GET', url: '/v1/balance?livemode=true', apiKey: merchant.apiKey });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(json(forbidden).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const anonymous = await context.request({ method: 'GET', url: '/v1/balance?livemode=false' });
    assert.equal(anonymous.statusCode, 401);
  });

  test('POST /v1/test_helpers/balance/fund adds sandbox funds; live (or omitted) → 403 FORBIDDEN; bad input → 400', async () => {
    const funded = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 12_345, currency: 'USD' } });
    assert.equal(funded.statusCode, 200, funded.body);
    assert.deepEqual(json<{ data: Balance }>(funded).data, { currency: 'USD', livemode: false, available: 100_012_345, reserved: 0, inFlight: 0 });
    for (const query of ['', '?livemode=true']) {
      const refused = await context.request({ method: 'POST', url: `/v1/test_helpers/balance/fund${query}`, apiKey: live.apiKey, body: { amount: 1, currency: 'USD' } });
      assert.equal(refused.statusCode, 403, query);
      assert.equal(json(refused).errorCode, 'FORBIDDEN');
    }
    for (const body of [{ amount: 0, currency: 'USD' }, { amount: 1.5, currency: 'USD' }, { amount: '5', currency: 'USD' }, { amount: 5, currency: 'EUR' }, { amount: 5 }, { amount: 5, currency: 'USD', extra: 1 }]) {
      const bad = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body });
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.equal(json(bad).errorCode, 'WRONG_PARAMETER');
    }
    const currency = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 5, currency: 'EUR' } });
    assert.match(String(json(currency).errorMessage), /^currency must be one of USDC, USD/);
  });

  test('the operator credits live balances (admin API); unknown merchant → 404; no token → 401', async () => {
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 500_000, currency: 'USDC' });
    assert.equal(credited.statusCode, 200, credited.body);
    assert.deepEqual(json<{ data: Balance }>(credited).data, { currency: 'USDC', livemode: true, available: 500_000, reserved: 0, inFlight: 0 });
    assert.equal((await balances(live.apiKey, '?livemode=true'))[0]?.available, 500_000);
    assert.equal((await balances(live.apiKey, '?livemode=false'))[0]?.available, 100_000_000, 'sandbox untouched');
    const unknown = await context.admin('POST', `/admin/v1/merchants/mer_unknown/balance/credit`, { amount: 1, currency: 'USD' });
    assert.equal(unknown.statusCode, 404);
    const anonymous = await context.app.inject({ method: 'POST', url: `/admin/v1/merchants/${live.id}/balance/credit`, payload: { amount: 1, currency: 'USD' } });
    assert.equal(anonymous.statusCode, 401);
    const read = await context.admin('GET', `/admin/v1/merchants/${live.id}/balance`);
    assert.equal(json<{ data: Balance[] }>(read).data.length, 4);
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

  test('the database refuses to change or delete ledger rows, to commit an unbalanced transaction, or to overdraw', async () => {
    const [entry] = await queryRows<{ id: string; transaction_id: string }>(context.database.db, sql`select id, transaction_id from ledger_entries limit 1`);
    assert.ok(entry);
    await assert.rejects(context.database.db.execute(sql`update ledger_entries set amount = amount + 1 where id = ${entry.id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`delete from ledger_entries where id = ${entry.id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`delete from ledger_transactions where id = ${entry.transaction_id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`truncate ledger_entries`), causedBy(/immutable/));

    const [account] = await queryRows<{ id: string; merchant_id: string }>(
      context.database.db,
      sql`select id, merchant_id from ledger_accounts where merchant_id = ${merchant.id} and livemode = false and currency = 'USDC' and kind = 'available'`,
    );
    assert.ok(account);
    await assert.rejects(
      context.database.transaction(async (tx) => {
        const now = context.clock.now();
        await tx.execute(sql`insert into ledger_transactions (id, merchant_id, livemode, currency, kind, idempotency_key, created_at)
          values ('ltx_unbalanced', ${account.merchant_id}, false, 'USDC', 'fund', 'unbalanced-test', ${now})`);
        await tx.execute(sql`insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at) values ('len_unbalanced', 'ltx_unbalanced', ${account.id}, 'USDC', 5, ${now})`);
      }),
      causedBy(/does not balance/),
    );
    await assert.rejects(context.database.db.execute(sql`update ledger_accounts set balance = -1 where id = ${account.id}`), causedBy(/ledger_accounts_no_overdraft/));
    assert.equal((await balances(merchant.apiKey))[0]?.available, 100_000_000);
  });
});
