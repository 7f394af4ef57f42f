import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { dashboardAuditActions } from '../../../src/modules/dashboard/audit.ts';
import { textOf, type DashboardClient } from '../dashboard/client.ts';
import { auditScreenStartedAt as startedAt, entryIds, openAuditScreenSuite } from '../../helpers/audit.ts';

describe('dashboard: the Audit log screen', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;
  let otherClient: DashboardClient;

  before(async () => ({ context, merchant, client, otherClient } = await openAuditScreenSuite()));
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
