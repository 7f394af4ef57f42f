import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

/** Malformed retention settings → 400 WRONG_PARAMETER naming the setting, and nothing is stored. */
describe('POST /admin/v1/retention (errors)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
    // One override present, so "nothing changes" also covers a stored value.
    assert.equal((await context.admin('POST', '/admin/v1/retention', { emailBodiesDays: 14 })).statusCode, 200);
  });
  after(async () => context.close());

  const cases: Array<[string, unknown, string]> = [
    ['idempotency records below the 24 h replay window', { idempotencyRecordsHours: 23 }, 'idempotencyRecordsHours'],
    ['idempotency records above 30 days', { idempotencyRecordsHours: 721 }, 'idempotencyRecordsHours'],
    ['webhook logs past the 30 days events are kept', { webhookDeliveryLogsDays: 31 }, 'webhookDeliveryLogsDays'],
    ['e-mail bodies of 0 days', { emailBodiesDays: 0 }, 'emailBodiesDays'],
    ['KYC details negative', { kycDetailsDays: -1 }, 'kycDetailsDays'],
    ['KYC details as a fraction', { kycDetailsDays: 1.5 }, 'kycDetailsDays'],
    ['KYC details as a string', { kycDetailsDays: '30' }, 'kycDetailsDays'],
    ['KYC details as a duration', { kycDetailsDays: '30d' }, 'kycDetailsDays'],
    ['a valid value beside a malformed one', { kycDetailsDays: 60, emailBodiesDays: 4000 }, 'emailBodiesDays'],
    ['an unknown setting', { eventsDays: 10 }, 'eventsDays'],
    ['a body that is not an object', [], 'body'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing changes`, async () => {
      const before = await snapshotTable(context.database, 'retention_settings');
      assertError(await context.admin('POST', '/admin/v1/retention', body), 400, 'WRONG_PARAMETER', field);
      assert.deepEqual(await snapshotTable(context.database, 'retention_settings'), before);
      assert.equal(before.length, 1);
    });
  }
});
