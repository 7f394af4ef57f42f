import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { type DashboardClient } from '../dashboard/client.ts';
import { auditCsvColumns } from '../../../src/modules/dashboard/screens/audit-log.tsx';
import { entryIds, openAuditScreenSuite } from '../../helpers/audit.ts';

describe('dashboard: the Audit log CSV', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;
  let otherClient: DashboardClient;

  before(async () => ({ context, merchant, client, otherClient } = await openAuditScreenSuite()));
  after(async () => context.close());

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
});
