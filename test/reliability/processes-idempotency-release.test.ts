import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Database, Executor } from '../../src/db/client.ts';
import { idempotencyKeys } from '../../src/db/schema/index.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { createTestContext, json } from '../helpers/context.ts';
import { fullKyc } from '../helpers/payout-pages.ts';

/**
 * Regression (found by the pg-stop harness): a request that failed because the database was down
 * (503) could not release its Idempotency-Key either (that needs the database too), so every retry
 * with the same key was refused as 409 IDEMPOTENCY_KEY_IN_USE for the whole in-progress lease
 * (60 s) after the database came back. The release is now retried in the background.
 *
 * Likewise an outage between a request's commit and the storing of its answer: the retry ran the
 * request again after the lease instead of replaying the answer.
 *
 * The outage is injected at the Database boundary (connection refused for one transaction and for
 * the first write to the key's record): the rest is the real platform on the real database.
 */
describe('Idempotency-Key after a database outage', () => {
  test('a retry with the same key runs (or replays) once the database is back, instead of 409 IN_USE for the lease', async () => {
    const real = await openTestDatabase();
    const outage = { transactions: 0, deletes: 0, updates: 0 };
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failing = { where: async () => Promise.reject(refused()), set: () => failing };
    // Writes to the Idempotency-Key records fail while `outage` says so; everything else is real.
    const db = new Proxy(real.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if ((property === 'delete' || property === 'update') && typeof value === 'function') {
          return (table: unknown) => {
            const budget = property === 'delete' ? 'deletes' : 'updates';
            if (table === idempotencyKeys && outage[budget] > 0) {
              outage[budget] -= 1;
              return failing;
            }
            return (value as (table: unknown) => unknown).call(target, table);
          };
        }
        return value;
      },
    }) as Executor;
    const database: Database = {
      kind: real.kind,
      db,
      transaction: (work) => {
        if (outage.transactions > 0) {
          outage.transactions -= 1;
          return Promise.reject(refused());
        }
        return real.transaction(work);
      },
      listen: (channel, onNotify) => real.listen(channel, onNotify),
      ping: () => real.ping(),
      close: () => real.close(),
    };
    const context = await createTestContext({ database });
    try {
      const merchant = await context.createMerchant();
      const key = randomUUID();
      const body = { referenceId: `outage-${key}`, signupAt: Date.now(), email: 'ada@example.com', ...fullKyc };
      const send = () => context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': key } });

      outage.transactions = 1;
      outage.deletes = 1;
      const failed = await send();
      assert.equal(failed.statusCode, 503, failed.body);
      assert.equal(json(failed).errorCode, 'SERVICE_UNAVAILABLE');
      assert.equal(outage.deletes, 0, 'the release met the outage too');

      // The database is back: the background release frees the key within a moment.
      let retried = await send();
      for (let attempt = 0; attempt < 40 && retried.statusCode === 409; attempt += 1) {
        assert.equal(json(retried).errorCode, 'IDEMPOTENCY_KEY_IN_USE');
        await new Promise((resolve) => setTimeout(resolve, 100));
        retried = await send();
      }
      assert.equal(retried.statusCode, 200, `the retry ran (not refused for the 60 s lease): ${retried.body}`);
      const replayed = await send();
      assert.equal(replayed.headers['idempotent-replayed'], 'true', 'and is stored for replay as usual');
      assert.equal(json<{ data: { id: string } }>(replayed).data.id, json<{ data: { id: string } }>(retried).data.id);

      // The database goes away between the request's commit and the storing of its answer: the
      // answer still goes out, the record is completed once the database is back, and a retry
      // replays it (not IN_USE for the lease, then a second run answering DUPLICATE_REFERENCE_ID).
      const secondKey = randomUUID();
      const second = { ...body, referenceId: `outage-${secondKey}` };
      const sendSecond = () => context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: second, headers: { 'idempotency-key': secondKey } });
      outage.updates = 1;
      const committed = await sendSecond();
      assert.equal(committed.statusCode, 200, committed.body);
      assert.equal(outage.updates, 0, 'storing the answer met the outage');
      let replay = await sendSecond();
      for (let attempt = 0; attempt < 40 && replay.statusCode === 409 && json(replay).errorCode === 'IDEMPOTENCY_KEY_IN_USE'; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        replay = await sendSecond();
      }
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true', 'the stored answer is replayed');
      assert.equal(json<{ data: { id: string } }>(replay).data.id, json<{ data: { id: string } }>(committed).data.id);
    } finally {
      await context.close();
      await real.close();
    }
  });
});
