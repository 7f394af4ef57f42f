import assert from 'node:assert/strict';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { customers, emails, events, payoutAttempts, payoutPageStatusHistory } from '../../src/db/schema/index.ts';
import type { PayoutMethodInput } from '../../src/modules/payout-pages/destinations.ts';
import { queryRows } from '../../src/db/client.ts';
import { AppError } from '../../src/http/errors.ts';
import { openEmailContent } from '../../src/modules/email/sealing.ts';
import { createTestContext, json, type TestContext, type TestContextOptions, type TestMerchant } from './context.ts';
import { assertLedgerInvariants } from './ledger.ts';
import { listCalls } from './lists.ts';
import { FormClient } from './browser.ts';
import { maxWrongCodes } from '../../src/modules/payout-pages/lock.ts';

export type PayoutPageData = Record<string, unknown> & {
  id: string;
  status: string;
  'sub-status': string;
  amount: number;
  customer: { id: string; referenceId: string; email?: string };
  merchant: { id: string; livemode: boolean };
  url: string;
  payoutMethod?: Record<string, string>;
  customerConfirmedAt?: number;
  statusReason?: string;
};

export const bankMethod = { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' } as const;
export const rejectedBankMethod = { ...bankMethod, accountNumber: '55550002' } as const;
export const walletMethod = { type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } as const;
export const deadWalletMethod = { type: 'CRYPTO_WALLET', network: 'BASE', address: '0x000000000000000000000000000000000000dEaD' } as const;

export const fullKyc = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
};

let counter = 0;

export function uniqueReference(prefix = 'ref'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function pageBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 10_000,
    fundingCurrency: 'USDC',
    clientReferenceId: uniqueReference('client'),
    releaseMethod: 'AUTOMATIC',
    customer: { referenceId: uniqueReference('customer'), email: 'ada@example.com' },
    ...overrides,
  };
}

export async function createPage(context: TestContext, merchant: TestMerchant, overrides: Record<string, unknown> = {}, query = '?livemode=false'): Promise<PayoutPageData> {
  const response = await context.request({ method: 'POST', url: `/v1/payout_pages${query}`, apiKey: merchant.apiKey, body: pageBody(overrides) });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: PayoutPageData }>(response).data;
}

/** A page's payout attempts, oldest first. */
export function attemptsOfPage(context: TestContext, pageId: string) {
  return context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, pageId)).orderBy(asc(payoutAttempts.number));
}

/**
 * A live page whose customer is verified, confirmed with `method` and its jobs run: AUTOMATIC goes
 * to PROCESSING (handed to the live rail) at once, MANUAL waits in AWAITING_RELEASE.
 */
export async function confirmedLivePage(
  context: TestContext,
  merchant: TestMerchant,
  page: { amount: number; fundingCurrency: 'USD' | 'USDC'; method: PayoutMethodInput; releaseMethod?: 'AUTOMATIC' | 'MANUAL' },
): Promise<PayoutPageData> {
  const created = await createPage(context, merchant, { amount: page.amount, fundingCurrency: page.fundingCurrency, releaseMethod: page.releaseMethod ?? 'AUTOMATIC' }, '?livemode=true');
  await context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, created.customer.id));
  await context.platform.services.payoutPages.confirm(created.id, page.method);
  await context.drainJobs();
  return getPage(context, merchant, created.id);
}

export async function getPage(context: TestContext, merchant: TestMerchant, id: string): Promise<PayoutPageData> {
  const response = await context.request({ method: 'GET', url: `/v1/payout_pages/${id}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: PayoutPageData }>(response).data;
}

export function confirmPage(context: TestContext, merchant: TestMerchant, id: string, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${id}/confirm?livemode=false`, apiKey: merchant.apiKey, body });
}

export function pageAction(context: TestContext, merchant: TestMerchant, id: string, action: 'release' | 'cancel'): Promise<LightMyRequestResponse> {
  return context.request({ method: 'POST', url: `/v1/payout_pages/${id}/${action}`, apiKey: merchant.apiKey });
}

export function errorCodeOf(response: LightMyRequestResponse): string {
  return String(json(response).errorCode);
}

/** Moves the test clock past the sandbox KYC / rail delay and runs every due job. */
export async function advanceAndDrain(context: TestContext, ms = 2_000): Promise<void> {
  await context.drainJobs();
  context.clock.advance(ms);
  await context.drainJobs();
}

export interface PayoutEvent {
  id: string;
  data: PayoutPageData & { previousStatus: string; previousSubStatus: string };
}

/**
 * The PAYOUT_PAGE_UPDATED events of one page, in the order they were recorded (events of one
 * transaction share a timestamp, so the order comes from the status history that names them).
 * Events not named by the history are listed too (and would fail the tests that compare).
 */
export async function payoutEvents(context: TestContext, pageId: string): Promise<PayoutEvent[]> {
  const rows = (await context.database.db
    .select({ id: events.id, data: events.data })
    .from(events)
    .where(and(eq(events.type, 'PAYOUT_PAGE_UPDATED'), sql`${events.data}->>'id' = ${pageId}`))) as PayoutEvent[];
  const history = await context.database.db.select().from(payoutPageStatusHistory).where(eq(payoutPageStatusHistory.payoutPageId, pageId)).orderBy(asc(payoutPageStatusHistory.id));
  const order = history.map((row) => row.eventId);
  return rows.sort((a, b) => (order.indexOf(a.id) === -1 ? 1e9 : order.indexOf(a.id)) - (order.indexOf(b.id) === -1 ? 1e9 : order.indexOf(b.id)));
}

export async function statusPath(context: TestContext, pageId: string): Promise<string[]> {
  const rows = await context.database.db.select().from(payoutPageStatusHistory).where(eq(payoutPageStatusHistory.payoutPageId, pageId)).orderBy(asc(payoutPageStatusHistory.id));
  return rows.map((row) => `${row.toStatus}/${row.toSubStatus}`);
}

/** The e-mails about one page, oldest first, opened as the sender and the inbox open them (they rest sealed). */
export async function pageEmails(context: TestContext, pageId: string): Promise<Array<{ template: string; subject: string; text: string; html: string }>> {
  const rows = await context.database.db
    .select({ id: emails.id, merchantId: emails.merchantId, template: emails.template, toCiphertext: emails.toCiphertext, subject: emails.subject, text: emails.text, html: emails.html })
    .from(emails)
    .where(eq(emails.relatedId, pageId))
    .orderBy(asc(emails.createdAt), asc(emails.id));
  return rows.map((row) => {
    const { subject, text, html } = openEmailContent(context.keyRing, row.merchantId, row.id, row);
    return { template: row.template, subject, text, html };
  });
}

/** The latest verification code e-mailed for a page (the sandbox inbox holds it). */
export async function latestCode(context: TestContext, pageId: string): Promise<string> {
  const sent = (await pageEmails(context, pageId)).filter((email) => email.template === 'payout_page_verification_code');
  const match = /code is (\d{6})/.exec(sent.at(-1)?.text ?? '');
  assert.ok(match?.[1], 'a verification code was e-mailed');
  return match[1];
}

/**
 * Across the whole database: every status change in the history has exactly one PAYOUT_PAGE_UPDATED
 * event naming the same previous and new state, and there is no event without a change.
 */
export async function assertOneEventPerChange(context: TestContext): Promise<number> {
  const changes = await context.database.db.execute(sql`
    select h.id, h.event_id, h.from_status, h.from_sub_status, h.to_status, h.to_sub_status,
           e.data->>'previousStatus' as previous_status, e.data->>'previousSubStatus' as previous_sub_status,
           e.data->>'status' as status, e.data->>'sub-status' as sub_status, e.data->>'id' as page_id, h.payout_page_id
    from payout_page_status_history h left join events e on e.id = h.event_id
    where h.from_status is not null`);
  const rows = (changes as unknown as { rows: Array<Record<string, string | null>> }).rows;
  for (const row of rows) {
    assert.ok(row.event_id, `history row ${String(row.id)} has an event`);
    assert.deepEqual(
      [row.previous_status, row.previous_sub_status, row.status, row.sub_status, row.page_id],
      [row.from_status, row.from_sub_status, row.to_status, row.to_sub_status, row.payout_page_id],
      `event of history row ${String(row.id)}`,
    );
  }
  const counted = await context.database.db.execute(sql`select count(*)::int as count from events where type = 'PAYOUT_PAGE_UPDATED'`);
  const events = (counted as unknown as { rows: Array<{ count: number }> }).rows[0]?.count ?? 0;
  assert.equal(events, rows.length, 'one PAYOUT_PAGE_UPDATED event per change, and none without one');
  return rows.length;
}

/**
 * Locks a hosted payout page the way a guesser does (issue 18 item 7): the wrong code entered
 * `maxWrongCodes` times through the hosted page, asking for a new code after every five, with the
 * test clock moved past the hourly limit on codes. (payout-page-lock.test.ts tests the lock itself.)
 */
export async function lockByWrongCodes(context: TestContext, pageId: string): Promise<void> {
  const client = new FormClient(context.app);
  for (let guess = 0; guess < maxWrongCodes; guess += 1) {
    if (guess % 5 === 0) {
      context.clock.advance(60 * 60_000);
      await client.get(`/payout-page/${pageId}`);
      const sent = await client.post(`/payout-page/${pageId}/code`, {});
      assert.equal(sent.headers.location, `/payout-page/${pageId}?notice=sent`);
    }
    const code = await latestCode(context, pageId);
    const answer = await client.post(`/payout-page/${pageId}/verify`, { code: String((Number(code) + 1) % 1_000_000).padStart(6, '0') });
    assert.equal(answer.statusCode, guess === maxWrongCodes - 1 ? 303 : 400, `guess ${guess + 1}`);
  }
}

/** A payout-page suite's `before`: a test context (`options` as createTestContext's) with one merchant, Acme Payouts. */
export async function openPayoutPageSuite(options: TestContextOptions = {}): Promise<{ context: TestContext; merchant: TestMerchant }> {
  const context = await createTestContext(options);
  return { context, merchant: await context.createMerchant({ name: 'Acme Payouts' }) };
}

/**
 * The `before` of the POST /v1/payout_pages suites: Acme <Payouts> & Co (a name to escape), another
 * merchant (scoping) and a live-enabled one.
 */
export async function openPayoutPageCreateSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext();
  return {
    context,
    merchant: await context.createMerchant({ name: 'Acme <Payouts> & Co' }),
    other: await context.createMerchant(),
    live: await context.createMerchant({ live: true }),
  };
}

/**
 * A payout-page suite's `after`: the ledger balances, every status change has its one event, then the
 * context closes; with `quietLogs`, nothing was logged at warning level or above either.
 */
export async function closePayoutPageSuite(context: TestContext, options: { quietLogs?: boolean } = {}): Promise<void> {
  await assertLedgerInvariants(context.database);
  await assertOneEventPerChange(context);
  const problems = context.logs.filter((line) => /"level":(40|50|60)/.test(line));
  await context.close();
  if (options.quietLogs) {
    assert.deepEqual(problems, [], 'no warnings or errors were logged');
  }
}

/** A payout page as GET /v1/payout_pages lists it. */
export type ListedPayoutPage = PayoutPageData & { createdAt: number; clientReferenceId: string };

/**
 * The `before` of the GET /v1/payout_pages suites: a live-enabled merchant (sandbox balance credited)
 * with 23 one-unit pages (every fourth live, every fifth canceled, two customers, two per millisecond so
 * the id breaks the tie) and another live-enabled merchant with one page for customer A. `created` is
 * newest first, each as GET by id answers it.
 */
export async function openPayoutPageListSuite(): Promise<{
  context: TestContext;
  merchant: TestMerchant;
  other: TestMerchant;
  created: ListedPayoutPage[];
  customerA: { referenceId: string; email: string };
}> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant({ live: true });
  const customerA = { referenceId: uniqueReference('list-a'), email: 'a@example.com' };
  const customerB = { referenceId: uniqueReference('list-b'), email: 'b@example.com' };
  assert.equal((await context.admin('POST', `/admin/v1/merchants/${merchant.id}/balance/credit`, { amount: 1_000_000, currency: 'USDC' })).statusCode, 200);
  const pages: PayoutPageData[] = [];
  for (let index = 0; index < 23; index += 1) {
    // Two pages share each millisecond: the id breaks the tie.
    if (index % 2 === 0) {
      context.clock.advance(1_000);
    }
    const livemode = index % 4 === 0;
    const page = await createPage(context, merchant, { amount: 1, customer: index % 3 === 0 ? customerA : customerB }, `?livemode=${livemode}`);
    if (index % 5 === 1) {
      assert.equal((await pageAction(context, merchant, page.id, 'cancel')).statusCode, 200);
    }
    pages.push(page);
  }
  const created = (await Promise.all(pages.map((page) => getPage(context, merchant, page.id)))) as ListedPayoutPage[];
  created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
  await createPage(context, other, { amount: 1, customer: customerA });
  return { context, merchant, other, created, customerA };
}

/** GET /v1/payout_pages as the suite's merchant (`listCalls`: `list`, `all`, `ids`). */
export function payoutPageLists(current: () => { context: TestContext; merchant: TestMerchant }) {
  return listCalls<ListedPayoutPage, 'payoutPages'>(current, '/v1/payout_pages', 'payoutPages');
}

/** Sandbox bank accounts: one the rail pays and returns a few seconds later (ending 0003), one it pays. */
export const returnedBankMethod = { ...bankMethod, accountNumber: '77770003' } as const;
export const otherBankMethod = { ...bankMethod, accountNumber: '123456780' } as const;

export type RetryOutcome = { ok: true; page: PayoutPageData } | { ok: false; code: string; message: string };

/** Other details after a failed payout, as the hosted page's confirmation sends them (the test helper's confirm stays CREATED-only). */
export async function retryPayout(context: TestContext, merchant: TestMerchant, pageId: string, method: PayoutMethodInput): Promise<RetryOutcome> {
  try {
    await context.platform.services.payoutPages.confirm(pageId, method);
    return { ok: true, page: await getPage(context, merchant, pageId) };
  } catch (error) {
    if (error instanceof AppError) {
      return { ok: false, code: error.code, message: error.message };
    }
    throw error;
  }
}

/** A page's ledger movements (kind and idempotency key), oldest first. */
export function ledgerMovementsOf(context: TestContext, pageId: string) {
  return queryRows<{ kind: string; key: string }>(context.database.db, sql`select kind, idempotency_key as key from ledger_transactions where reference = ${pageId} order by created_at, id`);
}

/** A 4,321 page paid to the account ending 0003 and returned by the sandbox rail (FAILED/PAYOUT_RETURNED). */
export async function paidThenReturned(context: TestContext, merchant: TestMerchant, releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC'): Promise<PayoutPageData> {
  const page = await createPage(context, merchant, { amount: 4_321, releaseMethod });
  assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: returnedBankMethod, kyc: fullKyc })).statusCode, 200);
  await advanceAndDrain(context); // KYC approved → released (AUTOMATIC)
  if (releaseMethod === 'MANUAL') {
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
  }
  await advanceAndDrain(context); // paid
  const paid = await getPage(context, merchant, page.id);
  assert.equal(`${paid.status}/${paid['sub-status']}`, 'PROCESSED/PAID');
  await advanceAndDrain(context); // returned a few (sandbox: SANDBOX_PAYOUT_DELAY_MS) seconds later
  return getPage(context, merchant, page.id);
}
