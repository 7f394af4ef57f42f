import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { queryRows } from '../../../src/db/client.ts';
import { customers as customerRows } from '../../../src/db/schema/index.ts';
import { enqueueJob } from '../../../src/jobs/queue.ts';
import { emailLookupBackfillQueue } from '../../../src/modules/customers/sealing.ts';
import { reencryptAll } from '../../../src/platform.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { ada, byEmailCall, openEmailListSuite } from '../../helpers/customer-email.ts';

/**
 * `GET /v1/customers?email=`: an exact match through a keyed hash (`customers.email_lookup`), never
 * the plain address in a searchable column; kept right through updates, the backfill of rows older
 * than the column (migration 0019's job) and a key-ring rotation.
 */
describe('GET /v1/customers?email= (keyed hash)', () => {
  const oldKey = parseKeySpec(generateKeySpec('lookold'));
  const newKey = parseKeySpec(generateKeySpec('looknew'));
  let context: TestContext;
  let merchant: TestMerchant;
  const opened: TestContext[] = [];
  let sandboxAda: string;
  let liveAda: string;
  let upperAda: string;
  let grace: string;
  const byEmail = byEmailCall(() => ({ context, merchant }));

  before(async () => {
    ({ context, merchant, sandboxAda, liveAda, upperAda, grace } = await openEmailListSuite(createKeyRing(oldKey)));
  });
  after(async () => {
    for (const each of opened.reverse()) {
      await each.close();
    }
    await context.close();
  });

  test('exact, case-sensitive, surrounding spaces ignored; both modes unless livemode is given', async () => {
    assert.deepEqual(await byEmail(ada), [liveAda, sandboxAda]);
    assert.deepEqual(await byEmail(` ${ada}`), [liveAda, sandboxAda]);
    assert.deepEqual(await byEmail(ada, '&livemode=false'), [sandboxAda]);
    assert.deepEqual(await byEmail(ada, '&livemode=true'), [liveAda]);
    assert.deepEqual(await byEmail('Ada.Lovelace@example.com'), [upperAda]);
    assert.deepEqual(await byEmail('nobody@example.com'), []);
    assert.deepEqual(await byEmail(ada, '&referenceId=email-1'), [sandboxAda], 'combines with the other filters');
  });

  test('the database holds a keyed hash per customer with an e-mail, never the address', async () => {
    const rows = await queryRows<{ id: string; email_lookup: string | null; whole: string }>(context.database.db, sql`select id, email_lookup, c::text as whole from customers c`);
    for (const row of rows) {
      assert.ok(!row.whole.toLowerCase().includes('lovelace') && !row.whole.includes('grace@'), 'no column of the row holds the address');
    }
    const lookups = rows.filter((row) => row.email_lookup !== null).map((row) => row.email_lookup ?? '');
    assert.equal(lookups.length, 5, 'one per customer with an e-mail (the one without has none)');
    for (const lookup of lookups) {
      assert.match(lookup, /^h1\.lookold\.[A-Za-z0-9_-]{43}$/);
    }
    const lookupOf = (id: string) => rows.find((row) => row.id === id)?.email_lookup;
    assert.equal(lookupOf(sandboxAda), lookupOf(liveAda), 'one merchant, one address: one hash in both modes');
    assert.equal(new Set(lookups).size, 4, 'the same address at another merchant hashes differently');
  });

  test('an update moves the customer to the new address', async () => {
    const response = await context.request({ method: 'POST', url: `/v1/customers/${grace}?livemode=false`, apiKey: merchant.apiKey, body: { email: 'grace.hopper@example.com' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(await byEmail('grace@example.com'), []);
    assert.deepEqual(await byEmail('grace.hopper@example.com'), [grace]);
  });

  test('customers older than the column get their hash from the backfill job', async () => {
    await context.database.db.update(customerRows).set({ emailLookup: null });
    assert.deepEqual(await byEmail(ada), [], 'without hashes nothing matches');
    await context.database.transaction((tx) => enqueueJob(tx, context.clock.now(), emailLookupBackfillQueue, {}));
    await context.drainJobs();
    assert.deepEqual(await byEmail(ada), [liveAda, sandboxAda]);
    assert.deepEqual(await byEmail('grace.hopper@example.com'), [grace]);
    const [without] = await context.database.db.select({ emailLookup: customerRows.emailLookup }).from(customerRows).where(eq(customerRows.referenceId, 'email-5'));
    assert.equal(without?.emailLookup, null);
  });

  test('a key-ring rotation: found under both keys while it runs, re-computed under the new key, found with the new key alone', async () => {
    const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: context.database, clock: context.clock });
    opened.push(rotating);
    assert.deepEqual(await byEmail(ada, '', rotating), [liveAda, sandboxAda], 'old hashes still match');
    const added = await (async () => {
      const response = await rotating.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'email-6', signupAt: context.clock.now().getTime(), email: ada } });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: { id: string } }>(response).data.id;
    })();
    assert.deepEqual(await byEmail(ada, '', rotating), [added, liveAda, sandboxAda], 'a hash under the new key matches beside the old ones');
    await reencryptAll(rotating.platform);
    const lookups = await queryRows<{ email_lookup: string }>(context.database.db, sql`select email_lookup from customers where email_lookup is not null`);
    assert.ok(lookups.length >= 6 && lookups.every((row) => row.email_lookup.startsWith('h1.looknew.')), 'every hash re-computed under the new key');
    const newOnly = await createTestContext({ keyRing: createKeyRing(newKey), database: context.database, clock: context.clock });
    opened.push(newOnly);
    assert.deepEqual(await byEmail(ada, '', newOnly), [added, liveAda, sandboxAda]);
  });
});
