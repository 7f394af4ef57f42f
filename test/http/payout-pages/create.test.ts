import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { bankMethod, confirmPage, createPage, errorCodeOf, getPage, pageAction, pageBody, pageEmails, uniqueReference, walletMethod, type PayoutPageData, assertOneEventPerChange } from '../../helpers/payout-pages.ts';
import { customers, payoutPages } from '../../../src/db/schema/index.ts';
import { queryRows } from '../../../src/db/client.ts';

const dayMs = 24 * 60 * 60 * 1000;

describe('POST /v1/payout_pages, GET, and the mode and merchant boundaries', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme <Payouts> & Co' });
    other = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
  });

  test('the response: every field of the documented answer, `sub-status` with its hyphen, defaults applied', async () => {
    const body = pageBody({ amount: 100, successReturnUrl: 'https://merchant.example/done?x=1', failureReturnUrl: 'http://merchant.example/failed', metadata: { order: '42', note: '' } });
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body });
    assert.equal(response.statusCode, 200, response.body);
    const envelope = json<{ status: string; data: PayoutPageData }>(response);
    assert.equal(envelope.status, 'SUCCEEDED');
    const page = envelope.data;
    assert.match(page.id, /^payout_page_[0-9a-z]{36}$/);
    const now = context.clock.now().getTime();
    assert.deepEqual(page, {
      id: page.id,
      status: 'CREATED',
      'sub-status': 'AWAITING_CUSTOMER',
      amount: 100,
      fundingCurrency: 'USDC',
      clientReferenceId: body.clientReferenceId,
      releaseMethod: 'AUTOMATIC',
      customer: { id: page.customer.id, referenceId: (body.customer as { referenceId: string }).referenceId, email: 'ada@example.com' },
      merchant: { id: merchant.id, livemode: false },
      url: `http://paysail.test/payout-page/${page.id}`,
      successReturnUrl: 'https://merchant.example/done?x=1',
      failureReturnUrl: 'http://merchant.example/failed',
      metadata: { order: '42', note: '' },
      expiresAt: now + 7 * dayMs,
      createdAt: now,
      updatedAt: now,
    });
    assert.match(page.customer.id, /^cus_/);
    assert.deepEqual(await getPage(context, merchant, page.id), page);
    // The page-created e-mail: link, merchant name escaped in HTML, no PII beyond the first name.
    const [created] = await pageEmails(context, page.id);
    assert.equal(created?.template, 'payout_page_created');
    assert.ok(created?.text.includes(page.url));
    assert.ok(created?.html.includes('Acme &lt;Payouts&gt; &amp; Co'));
    assert.equal(created?.html.includes('<Payouts>'), false);
  });

  test('validation: each rule answers 400 WRONG_PARAMETER naming the field', async () => {
    const now = context.clock.now().getTime();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: 0 }, /^amount must be an integer between 1 and 100000000$/],
      [{ amount: 100_000_001 }, /^amount must be an integer between 1 and 100000000$/],
      [{ amount: '100' }, /^amount must be an integer/],
      [{ amount: 10.5 }, /^amount must be an integer/],
      [{ fundingCurrency: 'EUR' }, /^fundingCurrency must be one of USDC, USD/],
      [{ releaseMethod: 'LATER' }, /^releaseMethod must be one of AUTOMATIC, MANUAL/],
      [{ clientReferenceId: '' }, /^clientReferenceId must be at least 1 character/],
      [{ clientReferenceId: 'x'.repeat(256) }, /^clientReferenceId must be at most 255 characters/],
      [{ customer: { referenceId: 'c' } }, /^customer.email is required/],
      [{ customer: { email: 'a@example.com' } }, /^customer.referenceId is required/],
      [{ customer: { referenceId: 'c', email: 'not-an-email' } }, /^customer.email must be a valid e-mail/],
      [{ customer: { referenceId: 'c', email: 'a@example.com', name: 'x' } }, /^customer.name is not a recognised field/],
      [{ successReturnUrl: 'ftp://merchant.example/' }, /^successReturnUrl must be an absolute http or https URL/],
      [{ failureReturnUrl: 'javascript:alert(1)' }, /^failureReturnUrl must be an absolute http or https URL/],
      [{ successReturnUrl: '/relative' }, /^successReturnUrl must be an absolute http or https URL/],
      [{ expiresAt: now - 1 }, /^expiresAt must be in the future and at most 30 days from now/],
      [{ expiresAt: now + 30 * dayMs + 1 }, /^expiresAt must be in the future and at most 30 days from now/],
      [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) }, /^metadata must have at most 20 entries/],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata keys must be 1-40 characters/],
      [{ metadata: { key: 5 } }, /^metadata.key must be a string/],
      [{ surprise: true }, /^surprise is not a recognised field/],
    ];
    for (const [override, message] of cases) {
      const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody(override) });
      assert.equal(response.statusCode, 400, `${JSON.stringify(override)}: ${response.body}`);
      assert.equal(errorCodeOf(response), 'WRONG_PARAMETER');
      assert.match(String(json(response).errorMessage), message, JSON.stringify(override));
    }
    const missing = { ...pageBody() };
    delete missing.releaseMethod;
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: missing });
    assert.equal(json(response).errorMessage, 'releaseMethod is required');
    assert.equal(
      (await createPage(context, merchant, { expiresAt: now + 30 * dayMs })).expiresAt,
      now + 30 * dayMs,
      'exactly 30 days is allowed',
    );
  });

  test('clientReferenceId is unique per merchant and mode: 409 DUPLICATE_CLIENT_REFERENCE_ID, nothing reserved twice', async () => {
    const clientReferenceId = uniqueReference('dup');
    await createPage(context, merchant, { clientReferenceId });
    const balance = await balanceOf(context.database, merchant.id, false, 'USDC');
    const duplicate = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: pageBody({ clientReferenceId }) });
    assert.equal(duplicate.statusCode, 409);
    assert.equal(errorCodeOf(duplicate), 'DUPLICATE_CLIENT_REFERENCE_ID');
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USDC'), balance);
    // Another merchant, or the other mode, may use the same reference.
    await createPage(context, other, { clientReferenceId });
    await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 1_000_000, currency: 'USDC' });
    await createPage(context, live, { clientReferenceId }, '?livemode=false');
    const liveCreated = await createPage(context, live, { clientReferenceId }, '');
    assert.equal(liveCreated.merchant.livemode, true);
  });

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

  test('409 INSUFFICIENT_FUNDS when the available balance cannot cover the amount; nothing is created', async () => {
    const poor = await context.createMerchant();
    await createPage(context, poor, { amount: 100_000_000, fundingCurrency: 'USD' });
    const refused = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: poor.apiKey, body: pageBody({ amount: 1, fundingCurrency: 'USD' }) });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorCodeOf(refused), 'INSUFFICIENT_FUNDS');
    const [count] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from payout_pages where merchant_id = ${poor.id}`);
    assert.equal(count?.count, 1);
    // USDC is a separate balance.
    await createPage(context, poor, { amount: 1, fundingCurrency: 'USDC' });
    // Live starts at zero: credit first.
    const liveRefused = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=true', apiKey: (await context.createMerchant({ live: true })).apiKey, body: pageBody() });
    assert.equal(errorCodeOf(liveRefused), 'INSUFFICIENT_FUNDS');
  });

  test('livemode omitted means live: a sandbox-only merchant gets 403 LIVE_MODE_NOT_ENABLED', async () => {
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages', apiKey: merchant.apiKey, body: pageBody() });
    assert.equal(response.statusCode, 403);
    assert.equal(errorCodeOf(response), 'LIVE_MODE_NOT_ENABLED');
    assert.match(String(json(response).errorMessage), /livemode=false/);
  });

  test("another merchant's ids, and the wrong mode, answer 404 everywhere", async () => {
    const page = await createPage(context, merchant);
    const calls = [
      { method: 'GET', url: `/v1/payout_pages/${page.id}` },
      { method: 'POST', url: `/v1/payout_pages/${page.id}/release` },
      { method: 'POST', url: `/v1/payout_pages/${page.id}/cancel` },
      { method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/confirm?livemode=false`, body: { payoutMethod: bankMethod } },
      { method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false` },
    ];
    for (const call of calls) {
      const response = await context.request({ ...call, apiKey: other.apiKey });
      assert.equal(response.statusCode, 404, `${call.method} ${call.url}`);
      assert.equal(errorCodeOf(response), 'NOT_FOUND');
    }
    const unknown = await context.request({ method: 'GET', url: '/v1/payout_pages/payout_page_00000000000000000000000000000000000', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);
    const livePage = await createPage(context, live, {}, '?livemode=false');
    const wrongMode = await context.request({ method: 'GET', url: `/v1/payout_pages/${livePage.id}?livemode=true`, apiKey: live.apiKey });
    assert.equal(wrongMode.statusCode, 404);
    const rightMode = await context.request({ method: 'GET', url: `/v1/payout_pages/${livePage.id}?livemode=false`, apiKey: live.apiKey });
    assert.equal(rightMode.statusCode, 200);
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'untouched');
  });

  test('test helpers are sandbox only: a live page or livemode=true → 403 FORBIDDEN', async () => {
    const livePage = await createPage(context, live, {}, '?livemode=true');
    for (const url of [`/v1/test_helpers/payout_pages/${livePage.id}/confirm`, `/v1/test_helpers/payout_pages/${livePage.id}/confirm?livemode=true`]) {
      const response = await context.request({ method: 'POST', url, apiKey: live.apiKey, body: { payoutMethod: bankMethod } });
      assert.equal(response.statusCode, 403, url);
      assert.equal(errorCodeOf(response), 'FORBIDDEN');
    }
    const decline = await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${livePage.id}/decline`, apiKey: live.apiKey });
    assert.equal(errorCodeOf(decline), 'FORBIDDEN');
  });

  test('live without a payout rail: MANUAL release is refused with a clear error; AUTOMATIC waits in PENDING with the reason', async () => {
    const service = context.platform.services.payoutPages;
    for (const releaseMethod of ['MANUAL', 'AUTOMATIC']) {
      const page = await createPage(context, live, { releaseMethod }, '?livemode=true');
      // Live KYC has no provider here: mark the customer verified directly, then confirm as the hosted page does.
      await context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, page.customer.id));
      await service.confirm(page.id, walletMethod);
      const read = await context.request({ method: 'GET', url: `/v1/payout_pages/${page.id}`, apiKey: live.apiKey });
      const data = json<{ data: PayoutPageData }>(read).data;
      assert.equal(data.status, 'PENDING', releaseMethod);
      assert.equal(data['sub-status'], 'AWAITING_RELEASE');
      assert.match(String(data.statusReason), /No live payout rail is configured/);
      const release = await pageAction(context, live, page.id, 'release');
      assert.equal(release.statusCode, 409);
      assert.equal(errorCodeOf(release), 'INVALID_STATE');
      assert.match(String(json(release).errorMessage), releaseMethod === 'MANUAL' ? /No live payout rail is configured/ : /AUTOMATIC/);
      assert.equal((await pageAction(context, live, page.id, 'cancel')).statusCode, 200, 'it can still be canceled');
    }
  });

  test('Idempotency-Key: a retried create replays the first answer and reserves once', async () => {
    const body = pageBody({ amount: 777 });
    const before = await balanceOf(context.database, merchant.id, false, 'USDC');
    const first = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': 'create-777' } });
    const second = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': 'create-777' } });
    assert.equal(first.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USDC')).reserved, before.reserved + 777);
  });

  test('the confirm helper validates the destination and the KYC fields, naming them', async () => {
    const page = await createPage(context, merchant);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ payoutMethod: { ...bankMethod, routingNumber: '021000022' } }, /^payoutMethod.routingNumber must be a valid 9-digit ABA routing number/],
      [{ payoutMethod: { ...bankMethod, accountNumber: '12' } }, /^payoutMethod.accountNumber must be 4 to 17 digits/],
      [{ payoutMethod: { ...walletMethod, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' } }, /^payoutMethod.address must be a ETHEREUM address/],
      [{ payoutMethod: { type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'not base58 0OIl' } }, /^payoutMethod.address must be a Solana address/],
      [{ payoutMethod: { type: 'CHEQUE' } }, /^payoutMethod.type must be one of BANK_TRANSFER, CRYPTO_WALLET/],
      [{ payoutMethod: { ...walletMethod, network: 'BITCOIN' } }, /^payoutMethod.network must be one of/],
      [{ payoutMethod: bankMethod, kyc: { dateOfBirth: '1990-02-30' } }, /^kyc.dateOfBirth must be a real calendar date/],
      [{ payoutMethod: bankMethod, kyc: { firstName: 'Ada' } }, /^kyc.lastName is required to verify the identity/],
    ];
    for (const [body, message] of cases) {
      const response = await confirmPage(context, merchant, page.id, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.match(String(json(response).errorMessage), message);
    }
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'a refused confirmation changes nothing');
  });
});
