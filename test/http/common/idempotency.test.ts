import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded, createCustomer, snapshotTable, uniqueReference, type CustomerData } from '../../helpers/assertions.ts';
import { queryRows } from '../../../src/db/client.ts';

const hour = 60 * 60 * 1000;

describe('Idempotency-Key (docs/API.md §5)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  function create(key: string | undefined, body: Record<string, unknown>, options: { apiKey?: string; query?: string } = {}): Promise<LightMyRequestResponse> {
    return context.request({
      method: 'POST',
      url: `/v1/customers${options.query ?? '?livemode=false'}`,
      apiKey: options.apiKey ?? merchant.apiKey,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  }

  const customerCount = async () => (await snapshotTable(context.database, 'customers')).length;

  test('the same key and body replays the first response byte for byte, with Idempotent-Replayed: true', async () => {
    const body = { referenceId: uniqueReference('idem'), signupAt: 1_700_000_000_000, email: 'replay@example.com', firstName: 'Replay' };
    const first = await create('key-replay', body);
    assertSucceeded(first);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const count = await customerCount();
    context.clock.advance(hour);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const replay = await create('key-replay', { ...body });
      assert.equal(replay.statusCode, first.statusCode);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.ok(replay.rawPayload.equals(first.rawPayload), 'byte-for-byte the same body (same JWE, same requestId)');
      assert.equal(replay.headers['content-type'], first.headers['content-type']);
      assert.match(String(replay.headers['request-id']), /^req_/);
      assert.notEqual(replay.headers['request-id'], first.headers['request-id'], 'the replay itself is a new request');
    }
    assert.equal(await customerCount(), count, 'no second customer');
  });

  test('the body is compared by content, not by key order or whitespace', async () => {
    const body = { referenceId: uniqueReference('order'), signupAt: 1_700_000_000_000, email: 'order@example.com' };
    const first = await create('key-order', body);
    const reordered = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: `{ "email": "order@example.com",\n  "signupAt": 1700000000000, "referenceId": "${body.referenceId}" }`,
      headers: { 'idempotency-key': 'key-order' },
    });
    assert.equal(reordered.headers['idempotent-replayed'], 'true');
    assert.ok(reordered.rawPayload.equals(first.rawPayload));
  });

  test('the same key with a different body, query or route → 409 IDEMPOTENCY_KEY_REUSED; nothing written', async () => {
    const body = { referenceId: uniqueReference('reuse'), signupAt: 1_700_000_000_000 };
    const first = assertSucceeded<CustomerData>(await create('key-reuse', body));
    const before = await snapshotTable(context.database, 'customers');
    assertError(await create('key-reuse', { ...body, email: 'other@example.com' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    assertError(await create('key-reuse', { ...body, referenceId: uniqueReference('reuse') }), 409, 'IDEMPOTENCY_KEY_REUSED');
    assertError(await create('key-reuse', body, { query: '?livemode=false&' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    const update = await context.request({ method: 'POST', url: `/v1/customers/${first.id}?livemode=false`, apiKey: merchant.apiKey, body: { email: 'x@example.com' }, headers: { 'idempotency-key': 'key-reuse' } });
    assertError(update, 409, 'IDEMPOTENCY_KEY_REUSED');
    assert.deepEqual(await snapshotTable(context.database, 'customers'), before);
  });

  test('a 4xx answer is stored and replayed too, even after the cause went away', async () => {
    const sandboxOnly = await context.createMerchant();
    const body = { referenceId: uniqueReference('forbidden'), signupAt: 1_700_000_000_000 };
    const first = await create('key-4xx', body, { apiKey: sandboxOnly.apiKey, query: '' });
    assertError(first, 403, 'LIVE_MODE_NOT_ENABLED');
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${sandboxOnly.id}/live`));
    const replay = await create('key-4xx', body, { apiKey: sandboxOnly.apiKey, query: '' });
    assert.equal(replay.statusCode, 403);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.ok(replay.rawPayload.equals(first.rawPayload));
    assert.equal((await createCustomer(context, sandboxOnly.apiKey, body, 'omit')).livemode, true, 'without the key the request runs');

    const duplicate = { referenceId: body.referenceId, signupAt: 1 };
    const conflict = await create('key-409', duplicate, { apiKey: sandboxOnly.apiKey, query: '' });
    assertError(conflict, 409, 'DUPLICATE_REFERENCE_ID');
    const conflictReplay = await create('key-409', duplicate, { apiKey: sandboxOnly.apiKey, query: '' });
    assert.equal(conflictReplay.headers['idempotent-replayed'], 'true');
    assert.ok(conflictReplay.rawPayload.equals(conflict.rawPayload));
  });

  test('a request refused by schema validation has not started, so it stores nothing (the key stays free)', async () => {
    const body = { referenceId: uniqueReference('schema'), signupAt: 1_700_000_000_000 };
    assertError(await create('key-schema', { ...body, unknownField: true }), 400, 'WRONG_PARAMETER', 'unknownField');
    const corrected = await create('key-schema', body);
    assertSucceeded(corrected);
    assert.equal(corrected.headers['idempotent-replayed'], undefined);
  });

  test('a 5xx answer is not stored: the retry runs again', async () => {
    const victim = await createCustomer(context, merchant.apiKey, { firstName: 'Victim' });
    const donor = await createCustomer(context, merchant.apiKey, { firstName: 'Donor' });
    const [original] = await queryRows<{ pii: string }>(context.database.db, sql`select pii::text as pii from customers where id = ${victim.id}`);
    // A ciphertext bound to another row does not decrypt: the update fails with 500.
    await context.database.db.execute(sql`update customers set pii = (select pii from customers where id = ${donor.id}) where id = ${victim.id}`);
    const failed = await context.request({ method: 'POST', url: `/v1/customers/${victim.id}`, apiKey: merchant.apiKey, body: { email: 'fix@example.com' }, headers: { 'idempotency-key': 'key-5xx' } });
    assertError(failed, 500, 'INTERNAL_ERROR');
    assert.equal((await queryRows(context.database.db, sql`select 1 from idempotency_keys where key = 'key-5xx'`)).length, 0, 'no record kept for a 5xx');
    await context.database.db.execute(sql`update customers set pii = ${String(original?.pii)}::jsonb where id = ${victim.id}`);
    const retried = await context.request({ method: 'POST', url: `/v1/customers/${victim.id}`, apiKey: merchant.apiKey, body: { email: 'fix@example.com' }, headers: { 'idempotency-key': 'key-5xx' } });
    assert.equal(assertSucceeded<CustomerData>(retried).email, 'fix@example.com');
    assert.equal(retried.headers['idempotent-replayed'], undefined);
  });

  test('while the first request is still running → 409 IDEMPOTENCY_KEY_IN_USE; after its lease a retry takes over', async () => {
    const body = { referenceId: uniqueReference('running'), signupAt: 1_700_000_000_000 };
    assertSucceeded(await create('key-running', body));
    // Put the record back in the state it has while the first request runs (its process still alive).
    await context.database.db.execute(
      sql`update idempotency_keys set state = 'in_progress', response_status = null, response_body = null, locked_until = ${new Date(context.clock.now().getTime() + 60_000)} where key = 'key-running'`,
    );
    const inUse = await create('key-running', body);
    assertError(inUse, 409, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(inUse.headers['retry-after'], '1');
    assertError(await create('key-running', { ...body, email: 'different@example.com' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    // The first attempt died without answering: once its lease passed, the retry runs for real.
    context.clock.advance(61_000);
    const takenOver = await create('key-running', body);
    assertError(takenOver, 409, 'DUPLICATE_REFERENCE_ID');
    assert.equal(takenOver.headers['idempotent-replayed'], undefined);
    const replay = await create('key-running', body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.ok(replay.rawPayload.equals(takenOver.rawPayload));
  });

  test('concurrent duplicates: one runs; every other answer is IN_USE or an exact replay; one customer', async () => {
    const body = { referenceId: uniqueReference('race'), signupAt: 1_700_000_000_000, email: 'race@example.com' };
    const count = await customerCount();
    const responses = await Promise.all(Array.from({ length: 6 }, () => create('key-race', body)));
    const original = responses.filter((response) => response.statusCode === 200 && response.headers['idempotent-replayed'] === undefined);
    assert.equal(original.length, 1, `exactly one request ran: ${responses.map((response) => response.statusCode).join(',')}`);
    const [winner] = original;
    assert.ok(winner);
    for (const response of responses) {
      if (response === winner) {
        continue;
      }
      if (response.statusCode === 409) {
        assertError(response, 409, 'IDEMPOTENCY_KEY_IN_USE');
      } else {
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['idempotent-replayed'], 'true');
        assert.ok(response.rawPayload.equals(winner.rawPayload));
      }
    }
    assert.equal(await customerCount(), count + 1);
    const after = await create('key-race', body);
    assert.equal(after.headers['idempotent-replayed'], 'true');
    assert.ok(after.rawPayload.equals(winner.rawPayload));
  });

  test('keys are scoped per merchant and per mode', async () => {
    const other = await context.createMerchant({ live: true });
    const body = { referenceId: 'scoped-ref', signupAt: 1_700_000_000_000 };
    const mine = assertSucceeded<CustomerData>(await create('key-scope', body));
    const theirs = assertSucceeded<CustomerData>(await create('key-scope', body, { apiKey: other.apiKey }));
    assert.notEqual(mine.id, theirs.id);
    assert.equal(theirs.merchantId, other.id);
    const live = await create('key-scope', body, { query: '?livemode=true' });
    assert.equal(live.headers['idempotent-replayed'], undefined);
    assert.equal(assertSucceeded<CustomerData>(live).livemode, true);
  });

  test('key length: 1–255 characters', async () => {
    const before = await snapshotTable(context.database, 'customers');
    assertError(await create('k'.repeat(256), { referenceId: uniqueReference('long'), signupAt: 1 }), 400, 'WRONG_PARAMETER', 'Idempotency-Key');
    assertError(await create('', { referenceId: uniqueReference('empty'), signupAt: 1 }), 400, 'WRONG_PARAMETER', 'Idempotency-Key');
    assert.deepEqual(await snapshotTable(context.database, 'customers'), before);
    const longest = await create('k'.repeat(255), { referenceId: uniqueReference('max'), signupAt: 1 });
    assertSucceeded(longest);
  });

  test('after 24 hours the key is forgotten and can be used again', async () => {
    const first = assertSucceeded<CustomerData>(await create('key-expiry', { referenceId: uniqueReference('day1'), signupAt: 1 }));
    context.clock.advance(24 * hour - 1_000);
    assertError(await create('key-expiry', { referenceId: uniqueReference('day1b'), signupAt: 1 }), 409, 'IDEMPOTENCY_KEY_REUSED');
    context.clock.advance(2_000);
    const second = await create('key-expiry', { referenceId: uniqueReference('day2'), signupAt: 1 });
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.notEqual(assertSucceeded<CustomerData>(second).id, first.id);
  });

  test('the key is ignored on GET', async () => {
    const customer = await createCustomer(context, merchant.apiKey);
    const read = await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey, headers: { 'idempotency-key': 'key-get' } });
    assert.equal(read.headers['idempotent-replayed'], undefined);
    assert.equal(json<{ data: { id: string } }>(read).data.id, customer.id);
    assert.equal((await queryRows(context.database.db, sql`select 1 from idempotency_keys where key = 'key-get'`)).length, 0);
  });
});
