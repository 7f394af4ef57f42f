import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { cardBody, createPage, payPage } from '../helpers/payment-pages.ts';
import { queryRows } from '../../src/db/client.ts';
import { startStripeReplica, type StripeReplica } from '../providers/stripe/replica.ts';

/**
 * Canary: distinctive card numbers and CVCs go through every path that takes a card (test helper,
 * hosted form, declines, validation failures, saved cards, the fraud card's signal, idempotent
 * replays); none of them may appear in any table or any log line.
 */
const canaries = {
  numbers: ['371449635398431', '378282246310005', '4000000000009995', '4100000000000019', '6011000990139424'],
  spaced: ['3782 8224 6310 005', '6011 0009 9013 9424'],
  cvcs: ['7193', '8264', '5931', '6402', '739', '418', '9157'],
};

/** A CVC counts as leaked when it stands alone (quoted, a field or a value), not inside ids or timestamps. */
function containsCvc(text: string, cvc: string): boolean {
  return new RegExp(`(^|["(,\\s=])${cvc}($|["),\\s&])`).test(text);
}

describe('card data never reaches the database or the logs', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let replica: StripeReplica;

  before(async () => {
    // Live mode through Stripe too: the card goes to Stripe's fields (the replica), never to Paysail.
    replica = await startStripeReplica({ secretKey: 'sk_live_canary' });
    context = await createTestContext({ env: { STRIPE_SECRET_KEY: 'sk_live_canary', STRIPE_PUBLISHABLE_KEY: 'pk_live_canary', STRIPE_WEBHOOK_SECRET: 'whsec_canary', STRIPE_API_URL: replica.url, STRIPE_JS_URL: replica.browser.jsUrl } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await replica.close();
  });

  test('pay through every path with canary cards', async () => {
    // Test helper, success with a saved card (subscription), with an Idempotency-Key (stored answer).
    const subscribed = await createPage(context, merchant, { amount: 1111, subscription: { productId: 'prod_canary', interval: 'MONTH' } });
    const paid = await context.request({
      method: 'POST',
      url: `/v1/test_helpers/payment_pages/${subscribed.id}/pay?livemode=false`,
      apiKey: merchant.apiKey,
      body: cardBody('371449635398431', { cvc: '7193' }),
      headers: { 'idempotency-key': 'canary-pay-1' },
    });
    assert.equal(paid.statusCode, 200, paid.body);
    const replay = await context.request({
      method: 'POST',
      url: `/v1/test_helpers/payment_pages/${subscribed.id}/pay?livemode=false`,
      apiKey: merchant.apiKey,
      body: cardBody('371449635398431', { cvc: '7193' }),
      headers: { 'idempotency-key': 'canary-pay-1' },
    });
    assert.equal(replay.body, paid.body);

    // Declines and validation failures (a card number typed into the name field included).
    const page = await createPage(context, merchant, { amount: 2222 });
    assert.equal((await payPage(context, merchant, page.id, '4000000000009995', { cvc: '739' })).statusCode, 402);
    assert.equal((await payPage(context, merchant, page.id, '6011000990139424', { cvc: '41' })).statusCode, 400);
    assert.equal((await payPage(context, merchant, page.id, '6011000990139424', { cvc: '418', cardholderName: '6011000990139424' })).statusCode, 400);
    assert.equal((await payPage(context, merchant, page.id, '6011000990139424', { cvc: '418', expMonth: 1, expYear: 2021 })).statusCode, 400);

    // The fraud card, with its network signal and report.
    const fraudPage = await createPage(context, merchant, { amount: 3333 });
    assert.equal((await payPage(context, merchant, fraudPage.id, '4100000000000019', { cvc: '418' })).statusCode, 200);
    context.clock.advance(2_000);
    await context.drainJobs();
    const reports = json<{ data: { count: number } }>(await context.request({ method: 'GET', url: '/v1/fraud_reports', apiKey: merchant.apiKey })).data;
    assert.equal(reports.count, 1);

    // The hosted form, with a spaced number; then a decline on the form.
    const formPage = await createPage(context, merchant, { amount: 4444 });
    const shown = await context.app.inject({ method: 'GET', url: `/payment-page/${formPage.id}` });
    const token = /name="_csrf" value="([^"]+)"/.exec(shown.body)?.[1] ?? '';
    const cookie = shown.cookies.map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const year = String((new Date().getUTCFullYear() + 2) % 100);
    const post = (cardNumber: string, cvc: string) =>
      context.app.inject({
        method: 'POST',
        url: `/payment-page/${formPage.id}`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: token, cardNumber, expiry: `11/${year}`, cvc, cardholderName: 'Canary Holder' }).toString(),
      });
    const formDecline = await post('4000 0000 0000 9995', '5931');
    assert.equal(formDecline.statusCode, 402);
    assert.ok(!formDecline.body.includes('4000 0000 0000 9995') && !containsCvc(formDecline.body, '5931'));
    const formPaid = await post('3782 8224 6310 005', '8264');
    assert.equal(formPaid.statusCode, 303, formPaid.body);

    // Renewal on the saved card.
    const call = await context.platform.services.payments.findCardToken(context.database.db, String((await queryRows<{ card_token_id: string }>(context.database.db, sql`select card_token_id from payments where page_id = ${subscribed.id} and status = 'SUCCEEDED'`))[0]?.card_token_id));
    assert.ok(call);
    const renewal = await context.platform.services.payments.chargeSavedCard({ merchantId: merchant.id, livemode: false, cardTokenId: call.id, amount: 1111, currency: 'USD' });
    assert.equal(renewal.status, 'SUCCEEDED');
    await context.drainJobs();

    // Live, through Stripe's fields: the page hands out a client secret; the card is confirmed at
    // Stripe (as the Payment Element's frame does, on Stripe's origin); Stripe's return URL settles.
    // The browser test (test/e2e/stripe-checkout.e2e.test.ts) types it into the stand-in's frame.
    const livePage = await createPage(context, merchant, { amount: 5555 }, '?livemode=true');
    const checkout = await context.app.inject({ method: 'GET', url: `/payment-page/${livePage.id}` });
    assert.equal(checkout.statusCode, 200);
    const clientSecret = /"clientSecret":"([^"]+)"/.exec(checkout.body)?.[1] ?? '';
    const intentId = clientSecret.split('_secret_')[0] ?? '';
    const confirmed = await fetch(`${replica.url}/v1/payment_intents/${intentId}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: 'pk_live_canary', client_secret: clientSecret, 'payment_method_data[type]': 'card', 'payment_method_data[card][number]': '378282246310005', 'payment_method_data[card][exp_month]': '12', 'payment_method_data[card][exp_year]': '34', 'payment_method_data[card][cvc]': '9157' }).toString(),
    });
    assert.equal(confirmed.status, 200, await confirmed.clone().text());
    const returned = await context.app.inject({ method: 'GET', url: `/payment-page/${livePage.id}/complete?payment_intent=${intentId}&payment_intent_client_secret=${clientSecret}&redirect_status=succeeded` });
    assert.equal(returned.statusCode, 303);
    const live = json<{ data: { status: string; payinDetails?: { last4: string } } }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${livePage.id}?livemode=true`, apiKey: merchant.apiKey })).data;
    assert.equal(live.status, 'PAID');
    assert.equal(live.payinDetails?.last4, '0005');
    assert.ok(replica.browser.received.some((entry) => entry.body.includes('378282246310005')), 'the number went to Stripe');
  });

  test('no table holds a canary card number or CVC (every table, every column, via information_schema)', async () => {
    const tables = await queryRows<{ table_name: string }>(context.database.db, sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`);
    assert.ok(tables.length >= 10);
    assert.ok(tables.some((table) => table.table_name === 'payments'));
    let scannedRows = 0;
    for (const { table_name: table } of tables) {
      const rows = await queryRows<{ row: string }>(context.database.db, sql`select (t.*)::text as row from ${sql.identifier(table)} t`);
      scannedRows += rows.length;
      for (const { row } of rows) {
        const digitsOnly = row.replace(/[\s-]/g, '');
        for (const number of canaries.numbers) {
          assert.ok(!digitsOnly.includes(number), `${table} holds the card number ${number}`);
        }
        for (const spaced of canaries.spaced) {
          assert.ok(!row.includes(spaced), `${table} holds ${spaced}`);
        }
        for (const cvc of canaries.cvcs) {
          assert.ok(!containsCvc(row, cvc), `${table} holds the CVC ${cvc}: ${row.slice(0, 300)}`);
        }
      }
    }
    assert.ok(scannedRows > 20);
    // The check would see them if they were there: the payments table does hold the last four digits.
    const lastFours = await queryRows<{ last4: string }>(context.database.db, sql`select last4 from payments`);
    assert.ok(lastFours.some((row) => row.last4 === '8431'));
  });

  test('no log line holds a canary card number, spaced number or CVC', () => {
    assert.ok(context.logs.length > 10);
    for (const line of context.logs) {
      const compact = line.replace(/[\s-]/g, '');
      for (const number of canaries.numbers) {
        assert.ok(!compact.includes(number), `a log line holds ${number}: ${line.slice(0, 300)}`);
      }
      for (const cvc of canaries.cvcs) {
        assert.ok(!containsCvc(line, cvc), `a log line holds the CVC ${cvc}: ${line.slice(0, 300)}`);
      }
      assert.ok(!line.includes('Canary Holder'));
    }
  });
});
