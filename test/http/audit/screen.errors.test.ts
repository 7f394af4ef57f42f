import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext } from '../../helpers/context.ts';
import { textOf, type DashboardClient } from '../dashboard/client.ts';
import { openAuditScreenSuite } from '../../helpers/audit.ts';

describe('dashboard: the Audit log screen and its CSV: bad filters', () => {
  let context: TestContext;
  let client: DashboardClient;

  before(async () => ({ context, client } = await openAuditScreenSuite()));
  after(async () => context.close());

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
});
