import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { FormClient } from '../helpers/browser.ts';
import { testDatabaseKind } from '../helpers/database.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { latestCode } from '../helpers/payout-pages.ts';
import { queryRows } from '../../src/db/client.ts';

/**
 * Data exposure (issue 9 item 5): canary PII, bank and wallet details, card numbers and CVCs go
 * through every flow that takes them (customer create/update and KYC, a payout page confirmed on the
 * hosted form after the e-mailed code, another through the API, a payment page paid on the hosted
 * form and through the API, a fraud report, a subscription renewal on the saved card, webhooks to a
 * loopback receiver, e-mails to a real SMTP receiver and the sandbox outbox). Then the logs, every
 * webhook body, every raw e-mail and a dump of the database are searched.
 *
 * Allowed (decided here, documented in docs/reliability/fuzz-isolation-exposure.md):
 * - the customer's first name in e-mails to that customer (the greeting), as delivered only: the SMTP
 *   receiver and the inbox API's answer. The stored e-mails (the `emails` table) are sealed like all
 *   PII, so the first name is in no table in plaintext;
 * - the customer's e-mail address as the recipient of e-mails to them, and in webhook bodies exactly
 *   where the interface puts it in the resource (`customer.email` of payout and payment pages);
 * - nothing else, anywhere: no other PII, no bank account or routing number, no wallet address, no
 *   card number, no CVC, in the database (plaintext), logs, webhook bodies or e-mails.
 */

const canary = {
  firstName: 'Quorvalinda',
  middleName: 'Zephyrantha',
  lastName: 'Blatherwick',
  dateOfBirth: '1969-07-21',
  phoneNumber: '+1 415 555 0142',
  email: 'canary.xq93@example.org',
  address: { line1: '7319 Canaryfeather Road', line2: 'Apt Quillzephyr 7', city: 'Wrenbrook', state: 'CA', postalCode: '94110', country: 'US' },
  newLine2: 'Suite Vx4 Marigold',
  accountHolderName: 'Ignatius Canarybank',
  accountNumber: '9876543219',
  routingNumber: '011000015',
  wallet: '0x7c3aaf1e2b9d4c6e8f0a1b2c3d4e5f6a7b8c9d0e',
  cards: ['371449635398431', '378282246310005', '4100000000000019'],
  cvcs: ['7193', '8264', '593'],
  cardholderName: 'Oswaldine Canaryholder',
  fraudReason: 'issuer reported card stolen',
  /** Entered by the customer on the hosted KYC form, and through the confirm helper's `kyc`. */
  kycForm: { lastName: 'Thistlewaite', dateOfBirth: '1971-03-14', phoneNumber: '(415) 555-0177', line1: '4401 Kycformica Lane', city: 'Pembertonvale', state: 'CA', postalCode: '94112' },
  kycHelper: { lastName: 'Gruntlebury', dateOfBirth: '1966-09-30', phoneNumber: '415-555-0188', line1: '55 Helperkyc Court', city: 'Ashcombefield', state: 'CA', postalCode: '94117' },
};

/** Values that must appear nowhere (other than where the header comment allows). */
const forbidden: Array<[string, string]> = [
  ['middle name', canary.middleName],
  ['last name', canary.lastName],
  ['date of birth', canary.dateOfBirth],
  ['phone number', '4155550142'],
  ['phone number', '555 0142'],
  ['address line 1', 'Canaryfeather'],
  ['address line 2', 'Quillzephyr'],
  ['city', 'Wrenbrook'],
  ['updated address line 2', 'Marigold'],
  ['account holder', 'Canarybank'],
  ['account number', canary.accountNumber],
  ['routing number', canary.routingNumber],
  ['wallet address', canary.wallet.slice(2)],
  ['cardholder name', 'Canaryholder'],
  ['KYC form last name', canary.kycForm.lastName],
  ['KYC form date of birth', canary.kycForm.dateOfBirth],
  ['KYC form phone number', '4155550177'],
  ['KYC form address line 1', 'Kycformica'],
  ['KYC form city', canary.kycForm.city],
  ['KYC helper last name', canary.kycHelper.lastName],
  ['KYC helper date of birth', canary.kycHelper.dateOfBirth],
  ['KYC helper phone number', '4155550188'],
  ['KYC helper address line 1', 'Helperkyc'],
  ['KYC helper city', canary.kycHelper.city],
  ...canary.cards.map((card): [string, string] => ['card number', card]),
];

/** A CVC counts as leaked when it stands alone (quoted, a field or a value), not inside ids or timestamps. */
function cvcIn(text: string): string | undefined {
  return canary.cvcs.find((cvc) => new RegExp(`(^|["(,:\\s=])${cvc}($|["),\\s&])`).test(text));
}

/** Everything forbidden found in `text` (case-insensitive; card numbers also with spaces and dashes removed). */
function findCanaries(text: string, options: { firstNameAllowed?: boolean; emailAllowed?: boolean } = {}): string[] {
  const lower = text.toLowerCase();
  const compact = lower.replace(/[\s-]/g, '');
  const found = forbidden.filter(([, value]) => lower.includes(value.toLowerCase()) || (/^\d+$/.test(value) && compact.includes(value))).map(([label, value]) => `${label} (${value})`);
  if (!options.firstNameAllowed && lower.includes(canary.firstName.toLowerCase())) {
    found.push('first name');
  }
  if (!options.emailAllowed && lower.includes(canary.email)) {
    found.push('e-mail address');
  }
  const cvc = cvcIn(text);
  if (cvc) {
    found.push(`CVC ${cvc}`);
  }
  return found;
}

/**
 * The documented masked payout method (`{type, last4, routingNumber}` / `{type, network,
 * address}`) is part of the payout page resource: the routing number (a public bank identifier) and
 * the wallet address (public on chain) may stand there, in answers, event payloads and webhook bodies.
 * Exactly those key-value pairs are removed before searching.
 */
function withoutMaskedPayoutMethod(text: string): string {
  // Also inside a row's text form, where quotes are doubled.
  return text.replace(new RegExp(`"+routingNumber"+\\s*:\\s*"+${canary.routingNumber}"+`, 'g'), '"routingNumber":"(allowed)"').replace(new RegExp(`"+address"+\\s*:\\s*"+0x${canary.wallet.slice(2)}"+`, 'gi'), '"address":"(allowed)"');
}

describe('canary PII, bank, wallet and card data through every flow', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;
  let smtp: SmtpSink;

  before(async () => {
    smtp = await startSmtpSink();
    receiver = await WebhookReceiver.start();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    merchant = await context.createMerchant({ name: 'Exposure merchant' });
  });
  after(async () => {
    await context.close();
    await receiver.close();
    await smtp.close();
  });

  const settle = async () => {
    for (let round = 0; round < 4; round += 1) {
      await context.drainJobs();
      context.clock.advance(2_500);
    }
    await context.drainJobs();
  };

  test('run every flow with the canaries', async () => {
    const api = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => context.request({ method, url, apiKey: merchant.apiKey, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
    const ok = async (promise: Promise<{ statusCode: number; body: string }>, label: string) => {
      const response = await promise;
      assert.ok(response.statusCode < 400, `${label}: ${response.statusCode} ${response.body.slice(0, 300)}`);
      return json<{ data: Record<string, unknown> }>(response as Parameters<typeof json>[0]).data;
    };
    await ok(api('POST', '/v1/webhook_endpoints?livemode=false', { url: receiver.url('/exposure'), enabledEvents: ['*'] }), 'webhook endpoint');
    assert.equal((await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true })).statusCode, 200);
    await ok(api('POST', '/v1/test_helpers/balance/fund?livemode=false', { amount: 10_000_000, currency: 'USDC' }), 'fund');

    // Customer: create (with an Idempotency-Key and a replay), update, a refused update, KYC to its decision.
    const {
      newLine2,
      accountHolderName: _holder,
      accountNumber: _account,
      routingNumber: _routing,
      wallet: _wallet,
      cards: _cards,
      cvcs: _cvcs,
      cardholderName: _cardholder,
      fraudReason: _reason,
      kycForm: _kycForm,
      kycHelper: _kycHelper,
      ...identity
    } = canary;
    const customerBody = { referenceId: 'exposure-customer', signupAt: 1_700_000_000_000, ...identity };
    const customer = await ok(api('POST', '/v1/customers?livemode=false', customerBody, { 'idempotency-key': 'exposure-create' }), 'customer');
    await ok(api('POST', '/v1/customers?livemode=false', customerBody, { 'idempotency-key': 'exposure-create' }), 'customer replay');
    await ok(api('POST', `/v1/customers/${String(customer.id)}`, { address: { line2: newLine2 }, email: canary.email }), 'customer update');
    assert.equal((await api('POST', `/v1/customers/${String(customer.id)}`, { lastName: canary.lastName })).statusCode, 400);
    assert.equal((await api('POST', '/v1/customers?livemode=false', { ...customerBody, referenceId: 'exposure-bad', phoneNumber: canary.lastName })).statusCode, 400);
    await settle();

    // Payout page 1: the hosted form — code by e-mail, bank details, review, confirm; paid out.
    const hosted = await ok(api('POST', '/v1/payout_pages?livemode=false', { amount: 12_345, fundingCurrency: 'USDC', clientReferenceId: 'exposure-payout-1', releaseMethod: 'AUTOMATIC', customer: { referenceId: 'exposure-customer', email: canary.email } }), 'payout page 1');
    const pageId = String(hosted.id);
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${pageId}`);
    const sent = await client.post(`/payout-page/${pageId}/code`, {});
    assert.equal(sent.statusCode, 303, sent.body);
    await client.get(String(sent.headers.location));
    const verified = await client.post(`/payout-page/${pageId}/verify`, { code: await latestCode(context, pageId) });
    assert.equal(verified.statusCode, 303, verified.body);
    await client.get(`/payout-page/${pageId}?method=BANK_TRANSFER`);
    const review = await client.post(`/payout-page/${pageId}/review`, { type: 'BANK_TRANSFER', accountHolderName: canary.accountHolderName, routingNumber: canary.routingNumber, accountNumber: canary.accountNumber, accountNumberConfirmation: canary.accountNumber, accountType: 'CHECKING' });
    assert.equal(review.statusCode, 200, review.body);
    const hidden = Object.fromEntries([...review.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].filter((match) => match[1] !== '_csrf').map((match) => [match[1] ?? '', match[2] ?? '']));
    const confirmed = await client.post(`/payout-page/${pageId}/confirm`, hidden);
    assert.equal(confirmed.statusCode, 303, confirmed.body);
    await settle();
    assert.equal((await ok(api('GET', `/v1/payout_pages/${pageId}`), 'payout page 1 read')).status, 'PROCESSED');

    // Payout page 3: a customer created with partial data completes KYC on the hosted form.
    const partial = { firstName: canary.firstName, email: canary.email, address: { country: 'US' } };
    await ok(api('POST', '/v1/customers?livemode=false', { referenceId: 'exposure-kyc-form', signupAt: 1_700_000_000_000, ...partial }), 'partial customer (form)');
    const kycPage = await ok(api('POST', '/v1/payout_pages?livemode=false', { amount: 3_100, fundingCurrency: 'USDC', clientReferenceId: 'exposure-payout-3', releaseMethod: 'AUTOMATIC', customer: { referenceId: 'exposure-kyc-form', email: canary.email } }), 'payout page 3');
    const kycPageId = String(kycPage.id);
    const kycClient = new FormClient(context.app);
    await kycClient.get(`/payout-page/${kycPageId}`);
    const kycSent = await kycClient.post(`/payout-page/${kycPageId}/code`, {});
    assert.equal(kycSent.statusCode, 303, kycSent.body);
    assert.equal((await kycClient.post(`/payout-page/${kycPageId}/verify`, { code: await latestCode(context, kycPageId) })).statusCode, 303);
    await kycClient.get(`/payout-page/${kycPageId}?method=BANK_TRANSFER`);
    const kycReview = await kycClient.post(`/payout-page/${kycPageId}/review`, { type: 'BANK_TRANSFER', accountHolderName: canary.accountHolderName, routingNumber: canary.routingNumber, accountNumber: canary.accountNumber, accountNumberConfirmation: canary.accountNumber, accountType: 'CHECKING' });
    assert.equal(kycReview.statusCode, 200, kycReview.body);
    const kycHidden = Object.fromEntries([...kycReview.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].filter((match) => match[1] !== '_csrf').map((match) => [match[1] ?? '', match[2] ?? '']));
    assert.equal((await kycClient.post(`/payout-page/${kycPageId}/confirm`, kycHidden)).statusCode, 303);
    const { kycForm } = canary;
    const kycSubmitted = await kycClient.post(`/payout-page/${kycPageId}/kyc`, {
      lastName: kycForm.lastName,
      dateOfBirth: kycForm.dateOfBirth,
      phoneNumber: kycForm.phoneNumber,
      'address.line1': kycForm.line1,
      'address.city': kycForm.city,
      'address.state': kycForm.state,
      'address.postalCode': kycForm.postalCode,
    });
    assert.equal(kycSubmitted.statusCode, 303, kycSubmitted.body.slice(0, 600));
    await settle();
    assert.equal((await ok(api('GET', `/v1/payout_pages/${kycPageId}`), 'payout page 3 read')).status, 'PROCESSED');

    // Payout page 4: a partial customer whose KYC data comes through the confirm helper's `kyc`.
    await ok(api('POST', '/v1/customers?livemode=false', { referenceId: 'exposure-kyc-helper', signupAt: 1_700_000_000_000, ...partial }), 'partial customer (helper)');
    const helperPage = await ok(api('POST', '/v1/payout_pages?livemode=false', { amount: 3_200, fundingCurrency: 'USDC', clientReferenceId: 'exposure-payout-4', releaseMethod: 'AUTOMATIC', customer: { referenceId: 'exposure-kyc-helper', email: canary.email } }), 'payout page 4');
    const { kycHelper } = canary;
    await ok(
      api('POST', `/v1/test_helpers/payout_pages/${String(helperPage.id)}/confirm?livemode=false`, {
        payoutMethod: { type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: canary.wallet },
        kyc: {
          lastName: kycHelper.lastName,
          dateOfBirth: kycHelper.dateOfBirth,
          phoneNumber: kycHelper.phoneNumber,
          address: { line1: kycHelper.line1, city: kycHelper.city, state: kycHelper.state, postalCode: kycHelper.postalCode, country: 'US' },
        },
      }),
      'payout page 4 confirm with kyc',
    );
    await settle();
    assert.equal((await ok(api('GET', `/v1/payout_pages/${String(helperPage.id)}`), 'payout page 4 read')).status, 'PROCESSED');

    // Payout page 2: the wallet through the API test helper.
    const viaApi = await ok(api('POST', '/v1/payout_pages?livemode=false', { amount: 2_000, fundingCurrency: 'USDC', clientReferenceId: 'exposure-payout-2', releaseMethod: 'AUTOMATIC', customer: { referenceId: 'exposure-customer', email: canary.email } }), 'payout page 2');
    await ok(api('POST', `/v1/test_helpers/payout_pages/${String(viaApi.id)}/confirm?livemode=false`, { payoutMethod: { type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: canary.wallet } }), 'payout page 2 confirm');
    await settle();

    // Payment page with a subscription, paid through the API helper with a canary card (saved for renewals).
    const subscribed = await ok(
      api('POST', '/v1/payment_pages?livemode=false', { amount: 1_999, currency: 'USD', clientReferenceId: 'exposure-subscription', customer: { referenceId: 'exposure-customer', email: canary.email }, subscription: { productId: 'prod_exposure', interval: 'MONTH' } }),
      'subscription page',
    );
    const paid = await ok(api('POST', `/v1/test_helpers/payment_pages/${String(subscribed.id)}/pay?livemode=false`, { cardNumber: canary.cards[0], expMonth: 12, expYear: 2031, cvc: canary.cvcs[0], cardholderName: canary.cardholderName }), 'pay by API');
    await ok(api('POST', `/v1/test_helpers/subscriptions/${String(paid.subscriptionId)}/renew?livemode=false`), 'renewal');

    // Payment page paid on the hosted form (spaced number), and the fraud card with its report.
    const formPage = await ok(api('POST', '/v1/payment_pages?livemode=false', { amount: 4_444, currency: 'USD', clientReferenceId: 'exposure-form', customer: { referenceId: 'exposure-customer', email: canary.email } }), 'form page');
    const shown = await context.app.inject({ method: 'GET', url: `/payment-page/${String(formPage.id)}` });
    const token = /name="_csrf" value="([^"]+)"/.exec(shown.body)?.[1] ?? '';
    const cookie = shown.cookies.map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const formPaid = await context.app.inject({
      method: 'POST',
      url: `/payment-page/${String(formPage.id)}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, cardNumber: '3782 8224 6310 005', expiry: '11/31', cvc: String(canary.cvcs[1]), cardholderName: canary.cardholderName }).toString(),
    });
    assert.equal(formPaid.statusCode, 303, formPaid.body);
    const fraudPage = await ok(api('POST', '/v1/payment_pages?livemode=false', { amount: 3_333, currency: 'USD', clientReferenceId: 'exposure-fraud', customer: { referenceId: 'exposure-customer', email: canary.email } }), 'fraud page');
    const fraudPaid = await ok(api('POST', `/v1/test_helpers/payment_pages/${String(fraudPage.id)}/pay?livemode=false`, { cardNumber: canary.cards[2], expMonth: 1, expYear: 2030, cvc: canary.cvcs[2], cardholderName: canary.cardholderName }), 'fraud card');
    await ok(api('POST', '/v1/test_helpers/fraud_reports?livemode=false', { paymentId: fraudPaid.paymentId, fraudReason: canary.fraudReason }), 'fraud report');
    // The dispute test card, paid by the canary cardholder: disputed a moment later, then lost.
    const disputedPage = await ok(api('POST', '/v1/payment_pages?livemode=false', { amount: 2_222, currency: 'USD', clientReferenceId: 'exposure-dispute', customer: { referenceId: 'exposure-customer', email: canary.email } }), 'dispute page');
    await ok(api('POST', `/v1/test_helpers/payment_pages/${String(disputedPage.id)}/pay?livemode=false`, { cardNumber: '4000000000000259', expMonth: 12, expYear: 2031, cvc: '482', cardholderName: canary.cardholderName }), 'dispute card');
    await settle();
    const disputes = (await ok(api('GET', `/v1/disputes?paymentPageId=${String(disputedPage.id)}&livemode=false`), 'disputes')).disputes as Array<{ id: string }>;
    assert.equal(disputes.length, 1);
    await ok(api('POST', `/v1/test_helpers/disputes/${disputes[0]?.id ?? ''}/close?livemode=false`, { outcome: 'LOST' }), 'dispute lost');
    await settle();

    // Every flow reached its end and its webhooks and e-mails went out.
    assert.ok(receiver.requests.length >= 8, `${receiver.requests.length} webhooks received`);
    assert.ok(smtp.received.length >= 3, `${smtp.received.length} e-mails received over SMTP`);
    for (const type of ['PAYOUT_PAGE_UPDATED', 'PAYMENT_SUCCEEDED', 'FRAUD_REPORTED', 'ENTITLEMENT_CREATED', 'DISPUTE_CREATED', 'DISPUTE_CLOSED']) {
      assert.ok(receiver.requests.some((request) => request.body.includes(type)), `a ${type} webhook was delivered`);
    }
  });

  test('no webhook body holds a canary (the customer e-mail only where the interface puts it)', () => {
    assert.ok(receiver.requests.length > 0);
    for (const request of receiver.requests) {
      // The interface's page resources carry customer.email; remove exactly that field, then search.
      const body = JSON.parse(request.body) as { data?: { customer?: { email?: string } } };
      if (body.data?.customer?.email === canary.email) {
        delete body.data.customer.email;
      }
      const rest = withoutMaskedPayoutMethod(JSON.stringify(body)) + JSON.stringify(request.headers);
      assert.deepEqual(findCanaries(rest), [], `webhook ${rest.slice(0, 300)}`);
    }
  });

  test('no e-mail holds a canary (raw SMTP and the sandbox outbox); the first name and address only as greeting and recipient', async () => {
    assert.ok(smtp.received.length > 0);
    for (const [index, parsed] of smtp.received.entries()) {
      const raw = smtp.raw[index] ?? '';
      const recipients = [parsed.to].flat().flatMap((to) => to?.value.map((address) => address.address) ?? []);
      assert.deepEqual(recipients, [canary.email], 'e-mails with canaries go to the customer only');
      // Headers carry the recipient; the body may greet by first name. Nothing else.
      const decoded = `${parsed.subject ?? ''}\n${parsed.text ?? ''}\n${typeof parsed.html === 'string' ? parsed.html : ''}`;
      assert.deepEqual(findCanaries(decoded, { firstNameAllowed: true }), [], `e-mail "${parsed.subject ?? ''}"`);
      assert.deepEqual(findCanaries(raw, { firstNameAllowed: true, emailAllowed: true }), [], `raw e-mail "${parsed.subject ?? ''}"`);
    }
    assert.ok(
      smtp.received.some((parsed) => (parsed.text ?? '').includes(canary.firstName)),
      'an e-mail as delivered greets the customer by first name (so the sealed outbox below is a real check)',
    );
    // The stored outbox rests sealed: no canary at all, not even the first name.
    const outbox = await queryRows<{ id: string; to_ciphertext: string; subject: string; text: string; html: string }>(context.database.db, sql`select id, to_ciphertext, subject, text, html from emails`);
    assert.equal(outbox.length, smtp.received.length);
    for (const email of outbox) {
      assert.deepEqual(findCanaries(`${email.to_ciphertext}\n${email.subject}\n${email.text}\n${email.html}`), [], `outbox ${email.id}`);
      assert.ok([email.to_ciphertext, email.subject, email.text, email.html].every((value) => value.startsWith('v1.')), `outbox ${email.id} is sealed`);
    }
    const admin = await context.admin('GET', `/admin/v1/emails?merchantId=${merchant.id}`);
    assert.equal(admin.statusCode, 200);
    assert.deepEqual(findCanaries(admin.body, { firstNameAllowed: true, emailAllowed: true }), []);
  });

  test('no log line holds a canary', () => {
    assert.ok(context.logs.length > 20);
    const found = context.logs.flatMap((line) => findCanaries(line).map((what) => `${what}: ${line.slice(0, 200)}`));
    assert.deepEqual(found, []);
  });

  test('a dump of the database holds no canary in plaintext', async () => {
    let dump: string;
    if (testDatabaseKind === 'postgres') {
      // The real pg_dump binary against this file's own database (the pool's connection string).
      const [{ name } = { name: '' }] = await queryRows<{ name: string }>(context.database.db, sql`select current_database() as name`);
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.pathname = `/${name}`;
      const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', String(url)], { maxBuffer: 256 * 1024 * 1024 });
      dump = stdout;
      assert.match(dump, /COPY public\.customers/);
    } else {
      // PGlite: every table's rows as text, plus the raw data directory (the files on disk).
      const tables = await queryRows<{ name: string }>(context.database.db, sql`select table_schema || '.' || table_name as name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`);
      const parts: string[] = [];
      for (const { name } of tables) {
        const [schema, table] = name.split('.');
        const rows = await queryRows<{ row: string }>(context.database.db, sql.raw(`select t::text as row from "${String(schema)}"."${String(table)}" t`));
        parts.push(`-- ${name}\n${rows.map((row) => row.row).join('\n')}`);
      }
      const client = (context.database as unknown as { client: { dumpDataDir(compression: 'gzip' | 'none'): Promise<Blob> } }).client;
      const archive = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
      dump = parts.join('\n');
      assert.ok(archive.length > 1_000_000, 'the data directory was dumped');
      // The files themselves (old row versions included): the canary strings, without the CVC rule,
      // which would match random bytes between delimiters.
      const files = archive.toString('latin1').toLowerCase();
      // (The routing number and wallet address may rest in the masked payout method, see above.)
      // The first name too: no table holds it in plaintext (the stored e-mails rest sealed).
      const atRest = [...forbidden.filter(([label]) => label !== 'routing number' && label !== 'wallet address'), ['first name', canary.firstName] as [string, string]];
      assert.deepEqual(atRest.filter(([, value]) => files.includes(value.toLowerCase())), [], 'the data directory files');
    }
    assert.ok(dump.includes('exposure-customer'), 'the dump holds the rows (the referenceId is not PII)');
    // Line by line, knowing the table. No table is allowed the first name: the stored e-mails to the
    // customer (which greet them by it) rest sealed too.
    let table = '';
    const found: string[] = [];
    for (const line of dump.split('\n')) {
      table = /^(?:COPY|--) (public\.\w+)/.exec(line)?.[1] ?? table;
      found.push(...findCanaries(withoutMaskedPayoutMethod(line)).map((what) => `${table} ${what}: ${line.slice(0, 160)}`));
    }
    assert.ok(dump.includes('public.emails'), 'the dump holds the stored e-mails');
    assert.deepEqual(found, []);
  });
});
