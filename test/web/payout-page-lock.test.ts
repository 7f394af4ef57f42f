import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { FormClient, visibleText } from '../helpers/browser.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { createPage, getPage, latestCode, pageEmails, type PayoutPageData } from '../helpers/payout-pages.ts';
import { events, merchants, payoutPageAccessCodes, payoutPageSessions } from '../../src/db/schema/index.ts';
import { maxWrongCodes } from '../../src/modules/payout-pages/lock.ts';
import { signedInClient, textOf } from '../http/dashboard/client.ts';

/**
 * Issue 18 item 7: a hosted payout page takes at most 10 wrong verification codes in its life (over
 * every code and every hour); then it is locked — no code sent or accepted — until the merchant
 * reissues it (API or dashboard), with PAYOUT_PAGE_LOCKED / PAYOUT_PAGE_REISSUED and e-mails to the
 * merchant and the customer, over a real SMTP receiver.
 */
describe('hosted payout page: lifetime cap on wrong codes, lock and reissue', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let smtp: SmtpSink;
  let merchantEmail: string;

  before(async () => {
    smtp = await startSmtpSink();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
    other = await context.createMerchant({ name: 'Other Co' });
    const [row] = await context.database.db.select({ email: merchants.email }).from(merchants).where(eq(merchants.id, merchant.id));
    merchantEmail = row?.email ?? '';
    assert.ok(merchantEmail);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    const problems = context.logs.filter((line) => /"level":(50|60)/.test(line));
    await context.close();
    await smtp.close();
    assert.deepEqual(problems, [], 'no errors were logged');
  });

  /** Asks for a code (past the resend interval) and returns it. */
  async function sendCode(client: FormClient, page: PayoutPageData): Promise<{ status: number; location: string }> {
    await client.get(`/payout-page/${page.id}`);
    context.clock.advance(31_000);
    const sent = await client.post(`/payout-page/${page.id}/code`, {});
    return { status: sent.statusCode, location: String(sent.headers.location) };
  }

  /** A wrong code: one more than the real one, modulo a million. */
  function wrongOf(code: string): string {
    return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  }

  /** Enters `count` wrong codes, asking for a new code whenever the current one is used up (5 guesses each). */
  async function guessWrong(client: FormClient, page: PayoutPageData, count: number, done = 0): Promise<void> {
    for (let guess = done; guess < done + count; guess += 1) {
      if (guess % 5 === 0) {
        context.clock.advance(60 * 60_000); // past the hourly limit on codes: the lifetime cap is what stops guessing
        assert.equal((await sendCode(client, page)).location, `/payout-page/${page.id}?notice=sent`);
      }
      const answer = await client.post(`/payout-page/${page.id}/verify`, { code: wrongOf(await latestCode(context, page.id)) });
      assert.equal(answer.statusCode, guess === maxWrongCodes - 1 ? 303 : 400, `guess ${guess + 1}`);
    }
  }

  async function lockEvents(pageId: string, type: 'PAYOUT_PAGE_LOCKED' | 'PAYOUT_PAGE_REISSUED') {
    return context.database.db.select().from(events).where(and(eq(events.type, type), sql`${events.data}->>'id' = ${pageId}`));
  }

  test('10 wrong codes lock the page: no code is sent or accepted, a locked screen, an event, e-mails to merchant and customer', async () => {
    const page = await createPage(context, merchant, { customer: { referenceId: `lock-${Date.now()}`, email: 'payee.lock@example.com' } });
    const client = new FormClient(context.app);
    await guessWrong(client, page, maxWrongCodes - 1);
    assert.equal((await getPage(context, merchant, page.id)).lockedAt, undefined, 'not locked after 9 wrong codes');

    const staleToken = client.csrfToken(); // the locked screen has no form: an attacker replays an earlier token
    await guessWrong(client, page, 1, maxWrongCodes - 1); // the 10th
    const locked = await getPage(context, merchant, page.id);
    assert.equal(typeof locked.lockedAt, 'number', 'the API shows lockedAt');
    assert.equal(locked.status, 'CREATED', 'the payout state is untouched');

    // The customer's page: a locked screen, no form; asking for a code sends none.
    const shown = await client.get(`/payout-page/${page.id}`);
    assert.equal(shown.statusCode, 403);
    const text = visibleText(shown.body);
    assert.match(text, /This payout page is locked/);
    assert.match(text, /contact Acme Payouts/);
    assert.doesNotMatch(shown.body, /<form/);
    const codesBefore = (await pageEmails(context, page.id)).filter((email) => email.template === 'payout_page_verification_code').length;
    context.clock.advance(31_000);
    const asked = await client.post(`/payout-page/${page.id}/code`, { _csrf: staleToken }, { csrf: false });
    assert.equal(asked.headers.location, `/payout-page/${page.id}?notice=locked`);
    assert.equal((await pageEmails(context, page.id)).filter((email) => email.template === 'payout_page_verification_code').length, codesBefore, 'no code e-mailed');
    assert.equal((await context.database.db.select().from(payoutPageAccessCodes).where(eq(payoutPageAccessCodes.payoutPageId, page.id))).length, 0, 'earlier codes are gone');

    // Even the right code of the last one sent is refused now (before the fix, guessing went on with new codes).
    const refused = await client.post(`/payout-page/${page.id}/verify`, { _csrf: staleToken, code: await latestCode(context, page.id) }, { csrf: false });
    assert.equal(refused.statusCode, 303);
    assert.equal(client.cookie('ps_payout_session'), undefined, 'no session');

    const lockedEvents = await lockEvents(page.id, 'PAYOUT_PAGE_LOCKED');
    assert.equal(lockedEvents.length, 1, 'one PAYOUT_PAGE_LOCKED');
    const data = lockedEvents[0]?.data as Record<string, unknown>;
    assert.equal(data.lockedAt, locked.lockedAt);
    assert.doesNotMatch(JSON.stringify(data), /@/, 'no e-mail address in the event');

    await context.drainJobs();
    const toMerchant = smtp.received.find((mail) => mail.to && JSON.stringify(mail.to).includes(merchantEmail) && /locked/.test(mail.subject ?? ''));
    assert.ok(toMerchant, 'the merchant was e-mailed');
    assert.match(toMerchant.text ?? '', new RegExp(page.id));
    assert.match(toMerchant.text ?? '', /reissue/);
    assert.doesNotMatch(toMerchant.text ?? '', /payee\.lock@example\.com/, 'the merchant e-mail carries no customer address');
    const toCustomer = smtp.received.find((mail) => JSON.stringify(mail.to).includes('payee.lock@example.com') && mail.subject === 'Your payout page was locked');
    assert.ok(toCustomer, 'the customer was e-mailed');
    assert.match(toCustomer.text ?? '', /contact Acme Payouts/);
  });

  test('concurrent wrong guesses past the cap lock the page exactly once', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context.app);
    await guessWrong(client, page, maxWrongCodes - 2);
    context.clock.advance(60 * 60_000);
    await sendCode(client, page);
    const wrong = wrongOf(await latestCode(context, page.id));
    await Promise.all(Array.from({ length: 4 }, () => client.post(`/payout-page/${page.id}/verify`, { code: wrong })));
    assert.equal((await lockEvents(page.id, 'PAYOUT_PAGE_LOCKED')).length, 1);
    assert.equal(typeof (await getPage(context, merchant, page.id)).lockedAt, 'number');
  });

  test('reissue (API): unlocked, counter and codes reset, PAYOUT_PAGE_REISSUED, customer e-mailed; refused when not locked, foreign, or with a body', async () => {
    const page = await createPage(context, merchant, { customer: { referenceId: `reissue-${Date.now()}`, email: 'payee.reissue@example.com' } });
    const reissue = (apiKey: string, body?: unknown) => context.request({ method: 'POST', url: `/v1/payout_pages/${page.id}/reissue`, apiKey, ...(body === undefined ? {} : { body }) });

    const notLocked = await reissue(merchant.apiKey);
    assert.equal(notLocked.statusCode, 409, notLocked.body);
    assert.equal(json<{ errorCode: string }>(notLocked).errorCode, 'INVALID_STATE');

    const client = new FormClient(context.app);
    await guessWrong(client, page, maxWrongCodes);
    assert.equal(typeof (await getPage(context, merchant, page.id)).lockedAt, 'number');

    const foreign = await reissue(other.apiKey);
    assert.equal(foreign.statusCode, 404);
    const withField = await reissue(merchant.apiKey, { unlock: true });
    assert.equal(withField.statusCode, 400);
    assert.equal(json<{ errorCode: string }>(withField).errorCode, 'WRONG_PARAMETER');
    assert.match(json<{ errorMessage: string }>(withField).errorMessage, /unlock/);
    assert.equal(typeof (await getPage(context, merchant, page.id)).lockedAt, 'number', 'nothing written by refused calls');

    const done = await reissue(merchant.apiKey, {});
    assert.equal(done.statusCode, 200, done.body);
    const reissued = json<{ data: PayoutPageData }>(done).data;
    assert.equal(reissued.lockedAt, undefined);
    assert.equal((await lockEvents(page.id, 'PAYOUT_PAGE_REISSUED')).length, 1);
    assert.equal((await reissue(merchant.apiKey)).statusCode, 409, 'a second reissue: not locked any more');

    // The customer can verify again, with a new code, and gets the full 10 again.
    const fresh = new FormClient(context.app);
    assert.equal((await sendCode(fresh, page)).location, `/payout-page/${page.id}?notice=sent`);
    const verified = await fresh.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
    assert.equal(verified.statusCode, 303);
    assert.ok(fresh.cookie('ps_payout_session'));
    await context.drainJobs();
    assert.ok(smtp.received.some((mail) => JSON.stringify(mail.to).includes('payee.reissue@example.com') && /is open again/.test(mail.subject ?? '')), 'the customer was told');
  });

  test('lock ends sessions; a locked page that is then canceled cannot be reissued', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context.app);
    await guessWrong(client, page, maxWrongCodes);
    assert.equal((await context.database.db.select().from(payoutPageSessions).where(eq(payoutPageSessions.payoutPageId, page.id))).length, 0);
    const canceled = await context.request({ method: 'POST', url: `/v1/payout_pages/${page.id}/cancel`, apiKey: merchant.apiKey });
    assert.equal(canceled.statusCode, 200);
    const reissue = await context.request({ method: 'POST', url: `/v1/payout_pages/${page.id}/reissue`, apiKey: merchant.apiKey });
    assert.equal(reissue.statusCode, 409);
    assert.match(json<{ errorMessage: string }>(reissue).errorMessage, /nothing left to do/);
  });

  test('dashboard: a locked page offers Reissue behind the confirmation dialog the server checks too', async () => {
    const page = await createPage(context, merchant);
    const dashboard = await signedInClient(context, merchant);
    const path = `/dashboard/sandbox/payout-pages/${page.id}`;
    assert.doesNotMatch((await dashboard.get(path)).body, /\/reissue"/, 'no Reissue on an unlocked page');
    await guessWrong(new FormClient(context.app), page, maxWrongCodes);
    const detail = await dashboard.get(path);
    assert.match(detail.body, /<form method="post" action="\/dashboard\/sandbox\/payout-pages\/[^"]+\/reissue"/);
    assert.match(textOf(detail.body), /Locked after too many wrong codes/);

    assert.match(detail.body, /<dialog id="confirm[^"]*reissue" class="confirm"/, 'Reissue opens the confirmation dialog');
    assert.doesNotMatch(detail.body, /type="checkbox" name="confirm"/, 'no checkbox any more');

    const unconfirmed = await dashboard.post(`${path}/reissue`, {});
    assert.equal(unconfirmed.statusCode, 200, 'without confirmed=1: the confirmation page');
    assert.match(textOf(unconfirmed.body), /Reissue this payout page\? .*code guessing starts again from zero/);
    assert.equal(typeof (await getPage(context, merchant, page.id)).lockedAt, 'number', 'still locked');

    await dashboard.get(path);
    const confirmed = await dashboard.post(`${path}/reissue`, { confirmed: '1' });
    assert.equal(confirmed.headers.location, `${path}?notice=reissued`);
    assert.match(textOf((await dashboard.get(String(confirmed.headers.location))).body), /was reissued/);
    assert.equal((await getPage(context, merchant, page.id)).lockedAt, undefined);
  });
});
