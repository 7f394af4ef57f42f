import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/settings (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const cases: Array<[string, unknown, string]> = [
    ['fraudReportWebhooksEnabled as a string', { fraudReportWebhooksEnabled: 'true' }, 'fraudReportWebhooksEnabled'],
    ['fraudReportWebhooksEnabled as a number', { fraudReportWebhooksEnabled: 1 }, 'fraudReportWebhooksEnabled'],
    ['liveEnabled (has its own route)', { liveEnabled: true }, 'liveEnabled'],
    ['an unknown setting', { webhooksEnabled: true }, 'webhooksEnabled'],
    ['no body', undefined, 'body'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing changes`, async () => {
      const before = await snapshotTable(context.database, 'merchants');
      assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, body), 400, 'WRONG_PARAMETER', field);
      assert.deepEqual(await snapshotTable(context.database, 'merchants'), before);
    });
  }

  test('an unknown merchant → 404 NOT_FOUND', async () => {
    assertError(await context.admin('POST', `/admin/v1/merchants/mer_${'0'.repeat(36)}/settings`, { fraudReportWebhooksEnabled: true }), 404, 'NOT_FOUND');
  });
});
