import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, payPage } from '../../helpers/payment-pages.ts';
import { signedInClient, textOf } from './client.ts';

describe('dashboard: the disputes list and the disputes of a payment page', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
  });
  after(async () => context.close());

  test('a sandbox dispute is listed (status, reason, amount, page, next step), filtered by status, shown on its payment page, and to nobody else', async () => {
    const client = await signedInClient(context, merchant);
    const empty = textOf((await client.get('/dashboard/sandbox/disputes')).body);
    assert.match(empty, /No disputes in sandbox/);
    assert.match(empty, /4000 0000 0000 0259/, 'the empty state says how to get one');

    const page = await createPage(context, merchant, { amount: 3_150, clientReferenceId: 'order-disputed-1' });
    assert.equal((await payPage(context, merchant, page.id, '4000000000000259')).statusCode, 200);
    context.clock.advance(2_000);
    await context.drainJobs();
    const listed = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}`, apiKey: merchant.apiKey });
    const [dispute] = json<{ data: { disputes: Array<{ id: string }> } }>(listed).data.disputes;
    assert.ok(dispute);

    const list = await client.get('/dashboard/sandbox/disputes');
    assert.equal(list.statusCode, 200);
    const text = textOf(list.body);
    assert.match(text, new RegExp(dispute.id));
    assert.match(text, /Needs your response/);
    assert.match(text, /Fraudulent/);
    assert.match(text, /31\.50/);
    assert.match(text, /order-disputed-1/);
    assert.match(text, /Respond by/);
    assert.match(list.body, new RegExp(`href="/dashboard/sandbox/payment-pages/${page.id}"`));
    assert.doesNotMatch(list.body, /dashboard\.stripe\.com/, 'sandbox disputes have no Stripe page');

    assert.doesNotMatch(textOf((await client.get('/dashboard/sandbox/disputes?status=WON')).body), new RegExp(dispute.id));
    const closed = await context.request({ method: 'POST', url: `/v1/test_helpers/disputes/${dispute.id}/close?livemode=false`, apiKey: merchant.apiKey, body: { outcome: 'WON' } });
    assert.equal(closed.statusCode, 200, closed.body);
    const won = textOf((await client.get('/dashboard/sandbox/disputes?status=WON')).body);
    assert.match(won, new RegExp(dispute.id));
    assert.match(won, /Amount returned to your balance/);

    const today = context.clock.now().toISOString().slice(0, 10);
    const csv = await client.get(`/dashboard/sandbox/disputes/export.csv?status=WON&from=${today}&to=${today}`);
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="disputes-sandbox.csv"');
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.map((row) => [row.id, row.status, row.amount, row.currency, row.clientReferenceId]),
      [[dispute.id, 'WON', '3150', 'USD', 'order-disputed-1']],
    );
    assert.deepEqual(parse((await client.get('/dashboard/sandbox/disputes/export.csv?to=2020-01-01')).body, { columns: true }), [], 'nothing before the period');
    assert.match(textOf((await client.get('/dashboard/sandbox/disputes?to=2020-01-01')).body), /No disputes in this period\./);

    const detail = textOf((await client.get(`/dashboard/sandbox/payment-pages/${page.id}`)).body);
    assert.match(detail, /Disputes/);
    assert.match(detail, new RegExp(dispute.id));

    const stranger = await signedInClient(context, other);
    assert.doesNotMatch(textOf((await stranger.get('/dashboard/sandbox/disputes')).body), new RegExp(dispute.id));
    assert.equal((await stranger.get(`/dashboard/sandbox/payment-pages/${page.id}`)).statusCode, 404);
  });
});
