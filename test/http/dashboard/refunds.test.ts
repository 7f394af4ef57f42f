import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { paidPage, readPage, refundFootprint, settleSandboxRefunds } from '../../helpers/refunds.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';

describe('dashboard: refund a paid payment page (amount, confirmation page) and its refunds', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  /** The one-time key of the refund form as the page renders it (a browser posts it back). */
  async function refundKeyOf(pageId: string): Promise<string> {
    const match = /<input type="hidden" name="refundKey" value="([^"]+)"/.exec((await client.get(`/dashboard/sandbox/payment-pages/${pageId}`)).body);
    assert.ok(match?.[1], 'the form carries a one-time key');
    return match[1];
  }

  test('a PAID page offers the refund form with what is left; a CREATED page does not', async () => {
    const open = await createPage(context, merchant);
    assert.doesNotMatch((await client.get(`/dashboard/sandbox/payment-pages/${open.id}`)).body, /refund-amount/);
    const page = await paidPage(context, merchant, { amount: 2500 });
    const detail = await client.get(`/dashboard/sandbox/payment-pages/${page.id}`);
    assert.match(detail.body, /<input id="refund-amount" name="amount"[^>]*value="25.00"/);
    // Refund opens a dialog (inside the form) that names the typed amount and the card; its Confirm sends confirmed=1.
    assert.match(detail.body, /<form method="post" action="\/dashboard\/sandbox\/payment-pages\/[^"]+\/refund" class="card compact" aria-labelledby="refund-heading" data-confirm="(confirm-[^"]+)">[^]*<dialog id="\1"/);
    assert.match(textOf(detail.body), /Refund this payment\? 25\.00 USD will be sent back to the card \S+/);
    assert.match(detail.body, /<button type="submit" class="danger" name="confirmed" value="1">Make the refund<\/button>/);
    assert.match(textOf(detail.body), /Refunds No refunds on this payment\./);
    assert.match(textOf(detail.body), /Refunded 0\.00 USD/);
  });

  test('refund 10.50 with a reason: the same service as the API; the page lists the refund, then SUCCEEDED', async () => {
    const page = await paidPage(context, merchant, { amount: 2500 });
    const made = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { amount: '10.50', reason: 'DUPLICATE', confirmed: '1', refundKey: await refundKeyOf(page.id) });
    assert.equal(made.headers.location, `/dashboard/sandbox/payment-pages/${page.id}?notice=refunded`);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 1050);
    const shown = textOf((await client.get(String(made.headers.location))).body);
    assert.match(shown, /The refund was made/);
    assert.match(shown, /Refund Status Amount Reason Made re_\S+ Pending 10\.50 USD duplicate/);
    assert.match(shown, /Refunded 10\.50 USD/);
    assert.match((await client.get(`/dashboard/sandbox/payment-pages/${page.id}`)).body, /value="14.50"/, 'the form offers what is left');
    await settleSandboxRefunds(context);
    assert.match(textOf((await client.get(`/dashboard/sandbox/payment-pages/${page.id}`)).body), /re_\S+ Succeeded 10\.50 USD duplicate/);
  });

  test('without confirmed=1: the confirmation page names the amount and the card, nothing written; its Confirm makes the refund once', async () => {
    const page = await paidPage(context, merchant, { amount: 1000 });
    const refundKey = await refundKeyOf(page.id);
    const before = await refundFootprint(context);
    const forms: Array<Record<string, string>> = [{ amount: '5,5', reason: 'DUPLICATE', refundKey }, { amount: '5.50', reason: 'DUPLICATE', confirmed: 'yes', refundKey }];
    for (const form of forms) {
      const asked = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, form);
      assert.equal(asked.statusCode, 200, JSON.stringify(form));
      const text = textOf(asked.body);
      assert.match(text, /Refund this payment\? 5\.50 USD will be sent back to the card \S+ [^.]*•••• \d{4} of \S+@\S+ \(customer [^)]+\), who paid payment page \S+\. The amount leaves your available balance now\. A refund cannot be undone\./);
      assert.match(asked.body, new RegExp(`<input type="hidden" name="refundKey" value="${refundKey}"/>`), 'the one-time key is carried');
      assert.match(asked.body, /<input type="hidden" name="reason" value="DUPLICATE"\/>/);
      assert.match(asked.body, new RegExp(`<a class="button secondary" href="/dashboard/sandbox/payment-pages/${page.id}">Cancel</a>`));
      assert.deepEqual(await refundFootprint(context), before, 'nothing written');
      assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 0);
    }
    // The confirmation page's form, as a browser would post it (with its own fresh token).
    const fields = Object.fromEntries([...client.lastPage.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g)].map((match) => [match[1], match[2]]).filter(([name]) => name !== '_csrf'));
    assert.deepEqual(fields, { amount: '5.50', reason: 'DUPLICATE', refundKey, confirmed: '1' });
    const made = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, fields);
    assert.equal(made.headers.location, `/dashboard/sandbox/payment-pages/${page.id}?notice=refunded`);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 550);
    const after = await refundFootprint(context);
    assert.equal(after.refunds, before.refunds + 1, 'one refund');
  });

  test('with a bad amount or more than is left: an error notice and nothing written', async () => {
    const page = await paidPage(context, merchant, { amount: 1000 });
    const refundKey = await refundKeyOf(page.id);
    const before = await refundFootprint(context);
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ amount: 'five', confirmed: '1', refundKey }, 'refund-amount', /Enter the refund amount/],
      [{ amount: '1.234', confirmed: '1', refundKey }, 'refund-amount', /Enter the refund amount/],
      [{ amount: '0', confirmed: '1', refundKey }, 'refund-amount', /Enter the refund amount/],
      [{ amount: '10.01', confirmed: '1', refundKey }, 'refund-amount', /no more than what is left/],
      [{ amount: '5.00', confirmed: '1' }, 'refund-form', /This refund form is out of date/],
      [{ amount: '5.00', confirmed: '1', refundKey: 'not-a-form-key' }, 'refund-form', /This refund form is out of date/],
    ];
    for (const [form, key, message] of cases) {
      const refused = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, form);
      assert.equal(refused.headers.location, `/dashboard/sandbox/payment-pages/${page.id}?error=${key}`, JSON.stringify(form));
      assert.match(textOf((await client.get(String(refused.headers.location))).body), message);
    }
    assert.deepEqual(await refundFootprint(context), before);
    const created = await createPage(context, merchant);
    const notPaid = await client.post(`/dashboard/sandbox/payment-pages/${created.id}/refund`, { amount: '1.00', confirmed: '1', refundKey });
    assert.equal(notPaid.headers.location, `/dashboard/sandbox/payment-pages/${created.id}?error=INVALID_STATE`);
    assert.deepEqual(await refundFootprint(context), before);
  });

  test('a fully refunded page says so instead of offering the form', async () => {
    const page = await paidPage(context, merchant, { amount: 700 });
    await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { amount: '7', confirmed: '1', refundKey: await refundKeyOf(page.id) });
    const body = (await client.get(`/dashboard/sandbox/payment-pages/${page.id}`)).body;
    assert.doesNotMatch(body, /refund-amount/);
    assert.match(textOf(body), /This payment has been refunded in full\./);
  });

  test('a double click or a resubmitted form makes one refund: the form key answers the refund it made; a new rendering makes a new one', async () => {
    const page = await paidPage(context, merchant, { amount: 3000 });
    const form = { amount: '4.00', reason: 'REQUESTED_BY_CUSTOMER', confirmed: '1', refundKey: await refundKeyOf(page.id) };
    const before = await refundFootprint(context);
    // A double click: both submissions at once; then the form resubmitted (back button, reload).
    const answers = await Promise.all([client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, form), client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, form)]);
    answers.push(await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, form));
    for (const answer of answers) {
      assert.equal(answer.headers.location, `/dashboard/sandbox/payment-pages/${page.id}?notice=refunded`);
    }
    const after = await refundFootprint(context);
    assert.equal(after.refunds, before.refunds + 1, 'one refund');
    assert.equal(after.refundJobs, before.refundJobs + 1);
    assert.equal(after.refundLedger, before.refundLedger + 1, 'one debit');
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 400);
    assert.equal(textOf((await client.get(`/dashboard/sandbox/payment-pages/${page.id}`)).body).match(/re_\S+ Pending 4\.00 USD/g)?.length, 1);

    // The page rendered again carries a new key: a second refund is a new one.
    const again = await client.post(`/dashboard/sandbox/payment-pages/${page.id}/refund`, { ...form, refundKey: await refundKeyOf(page.id) });
    assert.equal(again.headers.location, `/dashboard/sandbox/payment-pages/${page.id}?notice=refunded`);
    assert.equal((await readPage(context, merchant, page.id)).refundedAmount, 800);

    // A key already used on this page, posted for another page, is refused and writes nothing.
    const other = await paidPage(context, merchant, { amount: 3000 });
    const unchanged = await refundFootprint(context);
    const reused = await client.post(`/dashboard/sandbox/payment-pages/${other.id}/refund`, form);
    assert.equal(reused.headers.location, `/dashboard/sandbox/payment-pages/${other.id}?error=refund-form`);
    assert.deepEqual(await refundFootprint(context), unchanged);
    assert.equal((await readPage(context, merchant, other.id)).refundedAmount, 0);
  });
});
