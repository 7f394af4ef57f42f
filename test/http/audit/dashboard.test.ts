import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { uniqueReference } from '../../helpers/payout-pages.ts';
import { dashboardAuditActions } from '../../../src/modules/dashboard/audit.ts';
import { auditCsvColumns } from '../../../src/modules/dashboard/screens/audit-log.tsx';
import { signedInClient, textOf, type DashboardClient } from '../dashboard/client.ts';

/** The audit entry ids a screen shows, in its order. */
function entryIds(html: string): string[] {
  return [...html.matchAll(/<tr id="(aud_[0-9a-z]+)"/g)].map((match) => String(match[1]));
}

describe('dashboard: the Audit log screen and its CSV', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let client: DashboardClient;
  let otherClient: DashboardClient;
  const startedAt = Date.parse('2027-03-10T12:00:00.000Z');

  before(async () => {
    context = await createTestContext();
    context.clock.set(new Date(startedAt));
    merchant = await context.createMerchant({ name: 'Audit Screen Sails', live: true });
    other = await context.createMerchant({ name: 'Other Sails' });
    // Sandbox customers on two days, one live customer, another merchant's customer, and the operator's settings change.
    for (const [who, mode] of [
      [merchant, 'false'],
      [merchant, 'false'],
      [merchant, 'true'],
      [other, 'false'],
    ] as const) {
      const created = await context.request({ method: 'POST', url: `/v1/customers?livemode=${mode}`, apiKey: who.apiKey, body: { referenceId: uniqueReference('screen'), signupAt: 1_700_000_000_000 } });
      assert.equal(created.statusCode, 200, created.body);
      context.clock.advance(24 * 60 * 60 * 1000);
    }
    assert.equal((await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true })).statusCode, 200);
    // Signed in after the clock moved (a session lasts 12 hours); sign-ins are not audit entries.
    client = await signedInClient(context, merchant);
    otherClient = await signedInClient(context, other);
    await context.platform.services.audit.flush();
  });
  after(async () => context.close());

  test("the merchant's own entries of the mode, and the operator's; never another merchant's", async () => {
    const sandbox = await client.get('/dashboard/sandbox/audit-log');
    assert.equal(sandbox.statusCode, 200);
    const shown = textOf(sandbox.body);
    assert.match(shown, /Audit log/);
    assert.equal(entryIds(sandbox.body).length, 3, 'two sandbox creates and the operator change');
    assert.match(shown, /Paysail operator Merchants: update settings/);
    assert.match(shown, /API key key_[0-9a-z]+ Customers: create cus_[0-9a-z]+ \S+ Succeeded/);
    assert.equal(entryIds((await client.get('/dashboard/live/audit-log')).body).length, 2, 'the live create and the operator change');
    const others = await otherClient.get('/dashboard/sandbox/audit-log');
    const mine = new Set(entryIds(sandbox.body));
    assert.equal(entryIds(others.body).length, 1);
    assert.ok(entryIds(others.body).every((id) => !mine.has(id)));
    assert.doesNotMatch(others.body, new RegExp(merchant.id));
  });

  test('filters: actor type, action and days (UTC); the navigation leads here', async () => {
    assert.equal(entryIds((await client.get('/dashboard/sandbox/audit-log?actorType=operator')).body).length, 1);
    assert.equal(entryIds((await client.get('/dashboard/sandbox/audit-log?action=customers_create')).body).length, 2);
    const day = new Date(startedAt).toISOString().slice(0, 10);
    assert.equal(entryIds((await client.get(`/dashboard/sandbox/audit-log?from=${day}&to=${day}`)).body).length, 1);
    const page = await client.get('/dashboard/sandbox/audit-log');
    assert.match(page.body, /<a href="\/dashboard\/sandbox\/audit-log" aria-current="page">Audit<\/a>/);
  });

  test('bad filters: 400 naming the field, on the screen and the CSV', async () => {
    for (const [query, field] of [
      ['actorType=robot', 'actorType'],
      ['from=2027-02-30', 'from'],
      ['to=tomorrow', 'to'],
      ['from=2027-03-12&to=2027-03-11', 'to'],
      ['action=drop%20table', 'action'],
    ]) {
      for (const path of ['/dashboard/sandbox/audit-log', '/dashboard/sandbox/audit-log/export.csv']) {
        const response = await client.get(`${path}?${query}`);
        assert.equal(response.statusCode, 400, `${path}?${query}`);
        assert.match(textOf(response.body), new RegExp(field), `${path}?${query}`);
      }
    }
  });

  test('the CSV of a filter has exactly the rows the screen shows, as text a spreadsheet cannot execute', async () => {
    for (const query of ['', '?action=customers_create', '?actorType=operator']) {
      const screen = entryIds((await client.get(`/dashboard/sandbox/audit-log${query}`)).body);
      const download = await client.get(`/dashboard/sandbox/audit-log/export.csv${query}`);
      assert.equal(download.statusCode, 200);
      assert.match(String(download.headers['content-type']), /^text\/csv/);
      assert.match(String(download.headers['content-disposition']), /attachment; filename="audit-log-sandbox.csv"/);
      const rows = parse(download.body, { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(Object.keys(rows[0] ?? {}), [...auditCsvColumns]);
      assert.deepEqual(
        rows.map((row) => row.id),
        screen,
        query,
      );
      assert.ok(rows.every((row) => row.mode === '' || row.mode === 'sandbox'));
    }
    const other = await otherClient.get('/dashboard/sandbox/audit-log/export.csv');
    assert.doesNotMatch(other.body, new RegExp(merchant.id));
  });

  test('a target that looks like a spreadsheet formula is escaped in the CSV', async () => {
    const formula = encodeURIComponent('=HYPERLINK("http://evil.test")');
    const refused = await context.request({ method: 'POST', url: `/v1/customers/${formula}/erase?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(refused.statusCode, 404);
    await context.platform.services.audit.flush();
    const rows = parse((await client.get('/dashboard/sandbox/audit-log/export.csv?action=customers_erase')).body, { columns: true }) as Array<Record<string, string>>;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.target, `'=HYPERLINK("http://evil.test")`);
    assert.equal(rows[0]?.outcome, 'FAILED');
  });

  test('every form of the signed-in dashboard has its audit action name', () => {
    const screens = path.join(import.meta.dirname, '../../../src/modules/dashboard/screens');
    const posted = fs
      .readdirSync(screens)
      .flatMap((file) => [...fs.readFileSync(path.join(screens, file), 'utf8').matchAll(/web\.post\(\s*'([^']+)'/g)].map((match) => String(match[1])))
      .filter((route) => route !== '/sign-in' && route !== '/sign-in/code' && route !== '/sign-out');
    assert.ok(posted.length >= 20, `found ${posted.length} forms`);
    assert.deepEqual(
      posted.filter((route) => dashboardAuditActions[route] === undefined),
      [],
    );
  });
});
