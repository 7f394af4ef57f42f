import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asc, eq, sql } from 'drizzle-orm';
import { adminApiKey, basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { auditEvents, dashboardUsers } from '../../../src/db/schema/index.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage, fullKyc, uniqueReference } from '../../helpers/payout-pages.ts';
import { paidPage } from '../../helpers/refunds.ts';
import { signedInClient } from '../dashboard/client.ts';

/** Issue 18 item 13: every state-changing action is recorded once, with actor, time, address, target and outcome. */
describe('audit log: what is recorded', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let userId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Audited Sails' });
    const [user] = await context.database.db.select({ id: dashboardUsers.id }).from(dashboardUsers).where(eq(dashboardUsers.merchantId, merchant.id));
    assert.ok(user);
    userId = user.id;
  });
  after(async () => context.close());

  /** Tuples in a fixed order: rows written in the same millisecond (the test clock stands still) have none of their own. */
  const sorted = <T,>(tuples: T[]): T[] => [...tuples].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  /** The rows recorded so far for one target (after the queued writes landed). */
  async function rowsFor(target: string) {
    await context.platform.services.audit.flush();
    return context.database.db.select().from(auditEvents).where(eq(auditEvents.target, target)).orderBy(asc(auditEvents.createdAt), asc(auditEvents.id));
  }

  function api(method: 'GET' | 'POST', url: string, address: string, body?: unknown) {
    return context.app.inject({
      method,
      url,
      remoteAddress: address,
      headers: { authorization: basicAuth(merchant.apiKey), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  test('a release through the API: one SUCCEEDED row for the key, the page and the address; a second release (409) one FAILED row', async () => {
    const referenceId = uniqueReference('verified');
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, ...fullKyc } });
    await advanceAndDrain(context);
    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', amount: 1_000, customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);

    const released = await api('POST', `/v1/payout_pages/${page.id}/release`, '203.0.113.7');
    assert.equal(released.statusCode, 200, released.body);
    const again = await api('POST', `/v1/payout_pages/${page.id}/release`, '203.0.113.7');
    assert.equal(again.statusCode, 409, again.body);

    const releases = (await rowsFor(page.id)).filter((row) => row.action === 'payoutPages_release');
    assert.equal(releases.length, 2);
    // Rows of one millisecond have no order among themselves (ids are time + random): match by request.
    const first = releases.find((row) => row.requestId === released.headers['request-id']);
    const second = releases.find((row) => row.requestId === again.headers['request-id']);
    assert.ok(first && second);
    const apiKeyId = `key_${merchant.apiKey.split('_')[1]}`;
    assert.deepEqual(
      { merchantId: first.merchantId, livemode: first.livemode, actorType: first.actorType, actorId: first.actorId, address: first.address, outcome: first.outcome, statusCode: first.statusCode, errorCode: first.errorCode, requestId: first.requestId },
      { merchantId: merchant.id, livemode: false, actorType: 'api_key', actorId: apiKeyId, address: '203.0.113.7', outcome: 'SUCCEEDED', statusCode: 200, errorCode: null, requestId: released.headers['request-id'] },
    );
    assert.match(first.id, /^aud_/);
    assert.equal(first.createdAt.getTime(), context.clock.now().getTime());
    assert.deepEqual({ outcome: second.outcome, statusCode: second.statusCode, errorCode: second.errorCode }, { outcome: 'FAILED', statusCode: 409, errorCode: 'INVALID_STATE' });
    // The whole secret (base64url: it may contain '_' itself), as the other tests take it.
    assert.ok(!JSON.stringify(releases).includes(merchant.apiKey.split('_').slice(2).join('_')), 'the key secret is never recorded');
  });

  test('a create records what it created; reads and unauthenticated requests are not recorded', async () => {
    await context.platform.services.audit.flush();
    const [{ count: before } = { count: 0 }] = await context.database.db.select({ count: sql<number>`count(*)::int` }).from(auditEvents);
    const created = await api('POST', '/v1/customers?livemode=false', '203.0.113.8', { referenceId: uniqueReference('audit'), signupAt: 1_700_000_000_000 });
    assert.equal(created.statusCode, 200, created.body);
    const customerId = json<{ data: { id: string } }>(created).data.id;
    assert.equal((await api('GET', `/v1/customers/${customerId}`, '203.0.113.8')).statusCode, 200);
    const anonymous = await context.app.inject({ method: 'POST', url: `/v1/customers/${customerId}/erase`, remoteAddress: '203.0.113.9' });
    assert.equal(anonymous.statusCode, 401);
    const rows = await rowsFor(customerId);
    assert.deepEqual(
      rows.map((row) => [row.action, row.actorType, row.address, row.livemode, row.outcome]),
      [['customers_create', 'api_key', '203.0.113.8', false, 'SUCCEEDED']],
    );
    const [{ count: afterwards } = { count: 0 }] = await context.database.db.select({ count: sql<number>`count(*)::int` }).from(auditEvents);
    assert.equal(afterwards, before + 1, 'the read and the refused request wrote nothing');
  });

  test('a refund through the dashboard: one row for the dashboard user; a refused refund is FAILED with its reason', async () => {
    const page = await paidPage(context, merchant, { amount: 2_500 });
    const client = await signedInClient(context, merchant, '198.51.100.23');
    const detail = await client.get(`/dashboard/sandbox/payment-pages/${page.id}`);
    const refundKey = /name="refundKey" value="([^"]+)"/.exec(detail.body)?.[1];
    assert.ok(refundKey);
    const asked = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { amount: '5.00', refundKey });
    assert.equal(asked.statusCode, 200, 'the confirmation step: nothing attempted, nothing recorded');
    const refused = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { amount: '99.00', refundKey, confirmed: '1' });
    assert.match(String(refused.headers.location), /error=refund-amount/);
    const made = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { amount: '5.00', refundKey, confirmed: '1' });
    assert.match(String(made.headers.location), /notice=refunded/);

    const rows = (await rowsFor(page.id)).filter((row) => row.action === 'refunds_create');
    assert.deepEqual(
      sorted(rows.map((row) => [row.actorType, row.actorId, row.merchantId, row.livemode, row.address, row.outcome, row.statusCode, row.errorCode])),
      [
        ['dashboard_user', userId, merchant.id, false, '198.51.100.23', 'FAILED', 303, 'refund-amount'],
        ['dashboard_user', userId, merchant.id, false, '198.51.100.23', 'SUCCEEDED', 303, null],
      ],
    );
  });

  test('an API key created and revoked from the dashboard, and a form without its CSRF token (403): recorded for the user', async () => {
    const client = await signedInClient(context, merchant, '198.51.100.24');
    await client.get('/dashboard/sandbox/developers/api-keys');
    await client.post('/dashboard/sandbox/developers/api-keys', { name: 'Audited key' });
    const listed = await client.get('/dashboard/sandbox/developers/api-keys');
    const keyIds = [...listed.body.matchAll(/\/developers\/api-keys\/(key_[0-9a-z]+)\/revoke/g)].map((match) => match[1]);
    // Newest first: the key just made, not the merchant's own (later tests still use that one).
    const keyId = keyIds[0];
    assert.notEqual(keyId, `key_${merchant.apiKey.split('_')[1]}`);
    assert.ok(keyId);
    const asked = await client.post(`/dashboard/sandbox/developers/api-keys/${keyId}/revoke`);
    assert.equal(asked.statusCode, 200, 'the confirmation step is not recorded');
    const revoked = await client.post(`/dashboard/sandbox/developers/api-keys/${keyId}/revoke`, { confirmed: '1' });
    assert.match(String(revoked.headers.location), /notice=api-key-revoked/);
    const forged = await client.post(`/dashboard/sandbox/developers/api-keys/${keyId}/revoke`, {}, { csrf: 'forged' });
    assert.equal(forged.statusCode, 403);

    const rows = await rowsFor(keyId);
    assert.deepEqual(
      sorted(rows.map((row) => [row.action, row.actorType, row.actorId, row.address, row.outcome, row.statusCode])),
      sorted([
        ['apiKeys_revoke', 'dashboard_user', userId, '198.51.100.24', 'SUCCEEDED', 303],
        ['apiKeys_revoke', 'dashboard_user', userId, '198.51.100.24', 'FAILED', 403],
      ]),
    );
    await context.platform.services.audit.flush();
    const creates = await context.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'apiKeys_create'));
    assert.equal(creates.length, 1);
    assert.equal(creates[0]?.address, '198.51.100.24');
  });

  test('live enabled by the operator: one row for the operator on the merchant; the PII keys revealed by the operator are recorded too', async () => {
    const other = await context.createMerchant({ name: 'Going live' });
    const admin = (method: 'GET' | 'POST', url: string) =>
      context.app.inject({ method, url, remoteAddress: '192.0.2.10', headers: { authorization: `Bearer ${adminApiKey}` } });
    const enabled = await admin('POST', `/admin/v1/merchants/${other.id}/live`);
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal((await admin('GET', `/admin/v1/merchants/${other.id}/pii_keys`)).statusCode, 200);
    assert.equal((await admin('GET', `/admin/v1/merchants/${other.id}`)).statusCode, 200);
    const rows = await rowsFor(other.id);
    assert.deepEqual(
      sorted(rows.map((row) => [row.action, row.actorType, row.actorId, row.merchantId, row.address, row.outcome, row.statusCode])),
      [
        ['adminMerchants_enableLive', 'operator', 'operator', other.id, '192.0.2.10', 'SUCCEEDED', 200],
        ['adminPiiKeys_list', 'operator', 'operator', other.id, '192.0.2.10', 'SUCCEEDED', 200],
      ],
    );
  });

  test('an id with a NUL or a lone surrogate is still recorded (as U+FFFD), and so are the rows written beside it', async () => {
    const [nul, fine] = await Promise.all([
      api('POST', '/v1/customers/%00/erase', '203.0.113.20'),
      api('POST', '/v1/customers?livemode=false', '203.0.113.20', { referenceId: uniqueReference('beside'), signupAt: 1_700_000_000_000 }),
    ]);
    assert.equal(nul.statusCode, 400, nul.body);
    assert.equal(fine.statusCode, 200, fine.body);
    // What the hook gets from a parameter or body field the validation then refuses.
    context.platform.services.audit.record({
      merchantId: merchant.id,
      livemode: null,
      actorType: 'operator',
      actorId: 'operator',
      action: 'adminMerchants_updateSettings',
      target: 'mer_\uD800x',
      address: '203.0.113.20',
      outcome: 'FAILED',
      statusCode: 400,
      errorCode: 'WRONG_PARAMETER',
      requestId: 'req_surrogate',
    });
    await context.platform.services.audit.flush();
    const rows = await context.database.db.select().from(auditEvents).where(eq(auditEvents.address, '203.0.113.20'));
    assert.deepEqual(
      sorted(rows.map((row) => [row.requestId, row.action, row.target?.startsWith('cus_') ? 'cus_' : row.target, row.outcome])),
      sorted([
        [nul.headers['request-id'], 'customers_erase', '\uFFFD', 'FAILED'],
        [fine.headers['request-id'], 'customers_create', 'cus_', 'SUCCEEDED'],
        ['req_surrogate', 'adminMerchants_updateSettings', 'mer_\uFFFDx', 'FAILED'],
      ]),
    );
    assert.ok(!context.logs.some((line) => line.includes('could not be written')));
  });
});
