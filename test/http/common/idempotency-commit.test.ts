import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { adminApiKey, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded } from '../../helpers/assertions.ts';
import { idempotencyKeys } from '../../../src/db/schema/index.ts';
import { runWithCommitGuard } from '../../../src/db/commit-guard.ts';
import { queryRows } from '../../../src/db/client.ts';

type Balance = { currency: string; available: number };

/**
 * docs/decisions/0004: the key is marked used in the same transaction as the request's effects, so a
 * request whose answer was lost (the process died between COMMIT and storing the answer) never runs
 * twice.
 */
describe('Idempotency-Key commits with the work (decision 0004)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const fund = (key: string, amount: number) =>
    context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount, currency: 'USD' }, headers: { 'idempotency-key': key } });

  async function usdAvailable(): Promise<number> {
    const response = await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey });
    const usd = json<{ data: Balance[] }>(response).data.find((balance) => balance.currency === 'USD');
    assert.ok(usd);
    return usd.available;
  }

  const keyRow = async (key: string) =>
    (await context.database.db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.merchantId, merchant.id), eq(idempotencyKeys.key, key))))[0];

  test('a completed request leaves its key completed with the answer; a retry replays it and funds once', async () => {
    const before = await usdAvailable();
    const first = await fund('commit-complete', 700);
    assertSucceeded(first);
    const row = await keyRow('commit-complete');
    assert.equal(row?.state, 'completed');
    const replay = await fund('commit-complete', 700);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.ok(replay.rawPayload.equals(first.rawPayload));
    assert.equal(await usdAvailable(), before + 700);
  });

  test('answer lost after the commit: a retry never runs the request again (IN_USE during the lease, then RESPONSE_LOST)', async () => {
    const before = await usdAvailable();
    assertSucceeded(await fund('commit-lost', 900));
    // What a SIGKILL between COMMIT and storing the answer leaves: the mark, no answer, the lease.
    await context.database.db
      .update(idempotencyKeys)
      .set({ state: 'committed', responseStatus: null, responseBody: null, responseContentType: null, lockedUntil: new Date(context.clock.now().getTime() + 60_000) })
      .where(and(eq(idempotencyKeys.merchantId, merchant.id), eq(idempotencyKeys.key, 'commit-lost')));

    const during = await fund('commit-lost', 900);
    assertError(during, 409, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(during.headers['retry-after'], '1');

    context.clock.advance(61_000);
    const afterLease = await fund('commit-lost', 900);
    assertError(afterLease, 409, 'IDEMPOTENCY_KEY_RESPONSE_LOST');
    assert.match(json<{ errorMessage: string }>(afterLease).errorMessage, /will not run again/);
    assert.equal(await usdAvailable(), before + 900, 'funded exactly once');

    const differentBody = await fund('commit-lost', 901);
    assertError(differentBody, 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('a request whose key was taken over while it ran commits nothing (the mark is in its own transaction)', async () => {
    const before = await usdAvailable();
    // Inside the funding transaction, after its ledger rows are written and before the guard runs,
    // another "retry" takes the key over (a new lease). The guard must refuse, and the funding roll back.
    await context.database.db.execute(sql`
      create or replace function steal_idempotency_key() returns trigger language plpgsql as $$
      begin
        update idempotency_keys set locked_until = locked_until + interval '1 hour' where key = 'commit-stolen';
        return new;
      end $$`);
    await context.database.db.execute(sql`create trigger steal_idempotency_key after insert on ledger_transactions for each row execute function steal_idempotency_key()`);
    try {
      const stolen = await fund('commit-stolen', 500);
      assertError(stolen, 409, 'IDEMPOTENCY_KEY_IN_USE', /took this Idempotency-Key over; nothing was changed/);
    } finally {
      await context.database.db.execute(sql`drop trigger steal_idempotency_key on ledger_transactions`);
    }
    assert.equal(await usdAvailable(), before, 'the funding rolled back with the refused mark');
  });

  test('a first attempt that died before its commit is run again by a retry after the lease', async () => {
    const before = await usdAvailable();
    const first = await fund('commit-died-early', 300);
    assertSucceeded(first);
    // Roll the world back to "claimed, nothing committed": the key in progress, the funding undone is
    // not possible (entries are immutable), so count from here.
    const afterFirst = await usdAvailable();
    assert.equal(afterFirst, before + 300);
    await context.database.db
      .update(idempotencyKeys)
      .set({ state: 'in_progress', responseStatus: null, responseBody: null, responseContentType: null, lockedUntil: new Date(context.clock.now().getTime() - 1) })
      .where(and(eq(idempotencyKeys.merchantId, merchant.id), eq(idempotencyKeys.key, 'commit-died-early')));
    const retry = await fund('commit-died-early', 300);
    assertSucceeded(retry);
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'ran, not replayed');
    assert.equal((await keyRow('commit-died-early'))?.state, 'completed');
    assert.equal(await usdAvailable(), afterFirst + 300);
  });

  test('a guard that refuses rolls the whole transaction back (the mechanism under the mark)', async () => {
    const marker = `guard-${Date.now()}`;
    await context.database.db.execute(sql`create table if not exists guard_probe (value text primary key)`);
    const refused = await new Promise<unknown>((resolve) => {
      runWithCommitGuard(
        {
          async beforeCommit() {
            throw new Error('lease taken over');
          },
        },
        () => {
          context.database
            .transaction(async (tx) => {
              await tx.execute(sql`insert into guard_probe (value) values (${marker})`);
            })
            .then(
              () => resolve(undefined),
              (error: unknown) => resolve(error),
            );
        },
      );
    });
    assert.ok(refused instanceof Error && refused.message === 'lease taken over');
    const rows = await queryRows<{ value: string }>(context.database.db, sql`select value from guard_probe where value = ${marker}`);
    assert.equal(rows.length, 0, 'nothing the transaction wrote survived');

    await context.database.transaction(async (tx) => {
      await tx.execute(sql`insert into guard_probe (value) values (${`${marker}-unguarded`})`);
    });
    const unguarded = await queryRows<{ value: string }>(context.database.db, sql`select value from guard_probe where value = ${`${marker}-unguarded`}`);
    assert.equal(unguarded.length, 1, 'outside a guard, transactions commit as before');
  });

  test('the admin API honours Idempotency-Key too: one merchant for two identical creates', async () => {
    const body = { name: 'Idempotent Operator Co', email: `idem-${Date.now()}@operator.example` };
    const send = () =>
      context.app.inject({
        method: 'POST',
        url: '/admin/v1/merchants',
        headers: { authorization: `Bearer ${adminApiKey}`, 'content-type': 'application/json', 'idempotency-key': 'admin-create-1' },
        payload: JSON.stringify(body),
      });
    const first = await send();
    assertSucceeded(first);
    const second = await send();
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.ok(second.rawPayload.equals(first.rawPayload), 'the same merchant, key and password, byte for byte');
    const named = await queryRows<{ total: number }>(context.database.db, sql`select count(*)::int as total from merchants where name = ${body.name}`);
    assert.equal(named[0]?.total, 1);
    const reused = await context.app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { authorization: `Bearer ${adminApiKey}`, 'content-type': 'application/json', 'idempotency-key': 'admin-create-1' },
      payload: JSON.stringify({ ...body, name: 'Another Co' }),
    });
    assertError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
  });
});
