import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { FormClient, hiddenFields, visibleText } from '../helpers/browser.ts';
import { closePayoutPageSuite, createPage, getPage, latestCode, openPayoutPageSuite, uniqueReference, type PayoutPageData } from '../helpers/payout-pages.ts';
import { countryOptions, usStateOptions } from '../../src/web/pages/payout-page/address-options.ts';
import { validateAddress } from '../../src/modules/customers/rules.ts';

const accountNumber = '000123456789';
const bank = { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber, accountType: 'CHECKING' };

/** The step the indicator marks current, and the compact line. */
function currentStep(html: string): { current: string; compact: string } {
  const current = /<li class="current" aria-current="step">[^]*?<span class="step-label">([^<]*)<\/span>/.exec(html)?.[1] ?? '';
  const compact = visibleText(/<p class="steps-compact" aria-hidden="true">[^]*?<\/p>/.exec(html)?.[0] ?? '').trim();
  return { current, compact };
}

/**
 * Issue 16 item 6 through HTTP: the step indicator on each step, the account number entered twice
 * (a field problem on the second entry; neither entry ever written back into HTML, the review step
 * hands a sealed destination to confirm), and the KYC form's country and US-state selects, whose
 * posted codes the server checks as strictly as the API.
 */
describe('hosted payout page polish: steps, double entry, country and state selects', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(() => closePayoutPageSuite(context, { quietLogs: true }));

  /** A customer with a first and last name only (so the KYC form asks for the address). */
  async function partialPage(): Promise<PayoutPageData> {
    const referenceId = uniqueReference('polish');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' } });
    assert.equal(created.statusCode, 200, created.body);
    return createPage(context, merchant, { customer: { referenceId, email: 'ada@example.com' } });
  }

  async function verified(page: PayoutPageData): Promise<FormClient> {
    const client = new FormClient(context.app);
    const start = await client.get(`/payout-page/${page.id}`);
    assert.deepEqual(currentStep(start.body), { current: 'Verify e‑mail', compact: 'Step 1 of 5 — Verify e‑mail' });
    context.clock.advance(31_000);
    await client.post(`/payout-page/${page.id}/code`, {});
    const done = await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
    assert.equal(done.statusCode, 303, done.body);
    return client;
  }

  test('the step indicator: an ordered list, done steps marked, aria-current on the step, "Step n of 5" for phones', async () => {
    const page = await partialPage();
    const client = await verified(page);
    const method = await client.get(`/payout-page/${page.id}`);
    assert.match(method.body, /<nav class="steps" aria-label="Payout steps">/);
    assert.match(method.body, /<ol><li class="done">[^]*?Done: <\/span>Verify e‑mail/);
    assert.deepEqual(currentStep(method.body), { current: 'Method', compact: 'Step 2 of 5 — Method' });
    assert.equal([...method.body.matchAll(/aria-current="step"/g)].length, 1, 'one current step');
    const details = await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    assert.deepEqual(currentStep(details.body), { current: 'Details', compact: 'Step 3 of 5 — Details' });
    const review = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumberConfirmation: accountNumber });
    assert.deepEqual(currentStep(review.body), { current: 'Review', compact: 'Step 4 of 5 — Review' });
    assert.equal((await client.post(`/payout-page/${page.id}/confirm`, hiddenFields(review.body))).statusCode, 303);
    const kyc = await client.get(`/payout-page/${page.id}`);
    assert.deepEqual(currentStep(kyc.body), { current: 'Identity', compact: 'Step 5 of 6 — Identity' });
    const submitted = await client.post(`/payout-page/${page.id}/kyc`, {
      dateOfBirth: '1990-12-10',
      phoneNumber: '+1 415 555 0123',
      'address.country': 'US',
      'address.line1': '1 Market St',
      'address.city': 'San Francisco',
      'address.state': 'CA',
      'address.postalCode': '94105',
    });
    assert.equal(submitted.statusCode, 303, visibleText(submitted.body).slice(0, 400));
    const status = await client.get(`/payout-page/${page.id}`);
    assert.ok(visibleText(status.body).includes('We’re verifying your identity'));
    assert.deepEqual(currentStep(status.body), { current: 'Status', compact: 'Step 5 of 5 — Status' });
    assert.doesNotMatch(status.body, /class="steps finished"/, 'not finished while it can still change');
    // A page that never reached the customer's steps (canceled before confirmation) shows no steps.
    const canceled = await partialPage();
    assert.equal((await context.request({ method: 'POST', url: `/v1/payout_pages/${canceled.id}/cancel?livemode=false`, apiKey: merchant.apiKey })).statusCode, 200);
    const canceledView = await context.app.inject({ method: 'GET', url: `/payout-page/${canceled.id}` });
    assert.ok(visibleText(canceledView.body).includes('This payout was canceled'));
    assert.doesNotMatch(canceledView.body, /class="steps/);
  });

  test('account number twice: missing or different second entry is a problem on it; neither entry is written back; a match goes on', async () => {
    const page = await partialPage();
    const client = await verified(page);
    await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);

    const missing = await client.post(`/payout-page/${page.id}/review`, bank);
    assert.equal(missing.statusCode, 400);
    assert.ok(visibleText(missing.body).includes('Confirm account number: Enter the account number a second time.'));
    assert.match(missing.body, /id="accountNumberConfirmation"[^>]*aria-invalid="true"/);

    const different = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumberConfirmation: '000123456788' });
    assert.equal(different.statusCode, 400);
    assert.ok(visibleText(different.body).includes('Confirm account number: Does not match the account number. Enter the same account number twice.'));
    assert.match(different.body, /<a href="#accountNumberConfirmation">/, 'listed in the summary, linked to the field');
    assert.ok(different.body.includes('value="Ada Lovelace"'), 'the other entries are kept');
    for (const response of [missing, different]) {
      assert.equal(response.body.includes(accountNumber), false, 'the account number is never written back into the page');
      assert.equal(response.body.includes('000123456788'), false, 'nor its second entry');
      assert.match(response.body, /id="accountNumber" name="accountNumber" type="text" value=""/);
      assert.match(response.body, /id="accountNumberConfirmation" name="accountNumberConfirmation" type="text" value=""/);
    }
    // Spaces and dashes are ignored on both sides, as the account number's own check does.
    const spaced = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumber: '0001 2345 6789', accountNumberConfirmation: '000-123-456-789' });
    assert.equal(spaced.statusCode, 200, spaced.body);
    // Every problem at once: a bad routing number and the mismatch, in form order.
    const both = await client.post(`/payout-page/${page.id}/review`, { ...bank, routingNumber: '021000022', accountNumberConfirmation: '1' });
    const summary = /<div class="error-summary"[^]*?<\/div>/.exec(both.body)?.[0] ?? '';
    assert.deepEqual([...summary.matchAll(/<a href="#(\w+)">/g)].map((match) => match[1]), ['routingNumber', 'accountNumberConfirmation']);
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'nothing is stored before confirmation');

    const review = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumberConfirmation: accountNumber });
    assert.equal(review.statusCode, 200, review.body);
    assert.ok(visibleText(review.body).includes('•••• 6789'));
    assert.equal(review.body.includes(accountNumber), false, 'the review page carries the destination sealed, not the account number');
    const fields = hiddenFields(review.body);
    assert.deepEqual(Object.keys(fields).sort(), ['sealed', 'type']);
    const confirmed = await client.post(`/payout-page/${page.id}/confirm`, fields);
    assert.equal(confirmed.statusCode, 303, confirmed.body);
    assert.deepEqual((await getPage(context, merchant, page.id)).payoutMethod, { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' });
  });

  test('a sealed destination confirms only its own page: another page refuses it on the form and writes nothing', async () => {
    const first = await partialPage();
    const second = await partialPage();
    const firstClient = await verified(first);
    await firstClient.get(`/payout-page/${first.id}?method=BANK_TRANSFER`);
    const sealed = hiddenFields((await firstClient.post(`/payout-page/${first.id}/review`, { ...bank, accountNumberConfirmation: accountNumber })).body);
    const secondClient = await verified(second);
    await secondClient.get(`/payout-page/${second.id}?method=BANK_TRANSFER`);
    const refused = await secondClient.post(`/payout-page/${second.id}/confirm`, sealed);
    assert.equal(refused.statusCode, 400);
    assert.ok(visibleText(refused.body).includes('Could not be read: enter the details again.'));
    const unchanged = await getPage(context, merchant, second.id);
    assert.equal(unchanged.status, 'CREATED');
    assert.equal(unchanged.payoutMethod, undefined);
  });

  test('country and US-state selects: every ISO country by English name, sorted, US chosen first; the 50 states, DC and territories', async () => {
    const page = await partialPage();
    const client = await verified(page);
    await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    const review = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumberConfirmation: accountNumber });
    await client.post(`/payout-page/${page.id}/confirm`, hiddenFields(review.body));
    const kyc = await client.get(`/payout-page/${page.id}`);
    const countrySelect = /<select id="address\.country" name="address\.country"[^>]*>([^]*?)<\/select>/.exec(kyc.body)?.[1] ?? '';
    const countries = [...countrySelect.matchAll(/<option value="([A-Z]*)"( selected="")?>([^<]*)<\/option>/g)];
    assert.equal(countries[0]?.[1], '', 'a "Select a country" placeholder first');
    assert.equal(countries.length - 1, 249, 'all officially assigned ISO 3166-1 codes');
    assert.deepEqual(countries.filter((match) => match[2]).map((match) => match[1]), ['US'], 'the United States chosen at first');
    const names = countries.slice(1).map((match) => visibleText(match[3] ?? ''));
    assert.deepEqual(names, [...names].sort(new Intl.Collator('en', { sensitivity: 'base' }).compare), 'sorted by name');
    assert.ok(names.includes('Germany') && names.includes('Japan') && names.includes('United States of America'));
    const stateSelect = /<div data-us-state="">[^]*?<select id="address\.state" name="address\.state"[^>]*>([^]*?)<\/select>/.exec(kyc.body)?.[1] ?? '';
    const states = [...stateSelect.matchAll(/<option value="([A-Z]*)"/g)].map((match) => match[1]);
    assert.equal(states.length, 1 + 50 + 1 + 5, 'placeholder, 50 states, DC, 5 territories');
    assert.ok(states.includes('CA') && states.includes('DC') && states.includes('PR'));
  });

  test('every offered code is one the server accepts (the selects offer nothing the API would refuse)', () => {
    for (const option of countryOptions) {
      assert.equal(validateAddress({ country: option.value }).country, option.value);
    }
    for (const option of usStateOptions) {
      assert.equal(validateAddress({ country: 'US', state: option.value }).state, option.value);
    }
  });

  test('the server still checks what the selects post: an unknown country or state is a field problem and nothing is written', async () => {
    const page = await partialPage();
    const client = await verified(page);
    await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    const review = await client.post(`/payout-page/${page.id}/review`, { ...bank, accountNumberConfirmation: accountNumber });
    await client.post(`/payout-page/${page.id}/confirm`, hiddenFields(review.body));
    await client.get(`/payout-page/${page.id}`);
    const base = { dateOfBirth: '1990-12-10', phoneNumber: '+1 415 555 0123', 'address.line1': '1 Market St', 'address.city': 'San Francisco', 'address.postalCode': '94105' };

    const country = await client.post(`/payout-page/${page.id}/kyc`, { ...base, 'address.country': 'ZZ', 'address.state': 'CA' });
    assert.equal(country.statusCode, 400);
    assert.ok(visibleText(country.body).includes('Country: Must be an ISO 3166-1 alpha-2 country code'), visibleText(country.body).slice(0, 500));
    assert.match(country.body, /<select id="address\.country"[^>]*aria-invalid="true"/);

    const state = await client.post(`/payout-page/${page.id}/kyc`, { ...base, 'address.country': 'US', 'address.state': 'ZZ' });
    assert.equal(state.statusCode, 400);
    assert.ok(visibleText(state.body).includes('State: Must be a USPS state code'));
    assert.match(state.body, /<select id="address\.state"[^>]*aria-invalid="true"/);
    assert.match(state.body, /<option value="US" selected="">/, 'the chosen country is kept');

    const noState = await client.post(`/payout-page/${page.id}/kyc`, { ...base, 'address.country': 'US' });
    assert.equal(noState.statusCode, 400, 'a US address needs its state');
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_REQUIRED', 'nothing written');

    const accepted = await client.post(`/payout-page/${page.id}/kyc`, { ...base, 'address.country': 'US', 'address.state': 'CA' });
    assert.equal(accepted.statusCode, 303, visibleText(accepted.body).slice(0, 500));
    assert.notEqual((await getPage(context, merchant, page.id))['sub-status'], 'KYC_REQUIRED');
  });
});
