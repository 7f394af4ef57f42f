import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext } from '../../helpers/context.ts';

interface Setting {
  value: number;
  unit: 'days' | 'hours';
  defaultValue: number;
  source: 'environment' | 'override';
  minimum: number;
  maximum: number;
}
type Settings = Record<'kycDetailsDays' | 'emailBodiesDays' | 'webhookDeliveryLogsDays' | 'idempotencyRecordsHours', Setting>;

/**
 * `GET`/`POST /admin/v1/retention`: the environment (RETENTION_*) gives the defaults, an override
 * wins until cleared with null, and what the job uses is what the API shows.
 */
describe('GET and POST /admin/v1/retention', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext({ env: { RETENTION_EMAIL_BODIES_DAYS: '7', RETENTION_IDEMPOTENCY_HOURS: '48' } });
  });
  after(async () => context.close());

  async function read(): Promise<Settings> {
    const response = await context.admin('GET', '/admin/v1/retention');
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Settings }>(response).data;
  }

  test('the environment gives the defaults (built-in where unset)', async () => {
    assert.deepEqual(await read(), {
      kycDetailsDays: { value: 1825, unit: 'days', defaultValue: 1825, source: 'environment', minimum: 1, maximum: 36500 },
      emailBodiesDays: { value: 7, unit: 'days', defaultValue: 7, source: 'environment', minimum: 1, maximum: 3650 },
      webhookDeliveryLogsDays: { value: 30, unit: 'days', defaultValue: 30, source: 'environment', minimum: 1, maximum: 30 },
      idempotencyRecordsHours: { value: 48, unit: 'hours', defaultValue: 48, source: 'environment', minimum: 24, maximum: 720 },
    });
  });

  test('an override wins over the environment, what is left out is unchanged, null returns to the default', async () => {
    const set = await context.admin('POST', '/admin/v1/retention', { emailBodiesDays: 90, kycDetailsDays: 365 });
    assert.equal(set.statusCode, 200, set.body);
    const afterSet = json<{ data: Settings }>(set).data;
    assert.deepEqual(afterSet.emailBodiesDays, { value: 90, unit: 'days', defaultValue: 7, source: 'override', minimum: 1, maximum: 3650 });
    assert.equal(afterSet.kycDetailsDays.value, 365);
    assert.deepEqual(await read(), afterSet, 'GET answers what POST stored');

    const status = await context.platform.services.retention.status();
    assert.equal(status.find((entry) => entry.category === 'emailBodies')?.cutoff.getTime(), context.clock.now().getTime() - 90 * 24 * 60 * 60 * 1000, 'the purge uses the override');

    const partly = json<{ data: Settings }>(await context.admin('POST', '/admin/v1/retention', { idempotencyRecordsHours: 24 })).data;
    assert.equal(partly.idempotencyRecordsHours.value, 24);
    assert.equal(partly.emailBodiesDays.value, 90, 'left out: unchanged');

    const cleared = json<{ data: Settings }>(await context.admin('POST', '/admin/v1/retention', { emailBodiesDays: null })).data;
    assert.deepEqual(cleared.emailBodiesDays, { value: 7, unit: 'days', defaultValue: 7, source: 'environment', minimum: 1, maximum: 3650 });
    assert.equal(cleared.kycDetailsDays.source, 'override');

    const empty = await context.admin('POST', '/admin/v1/retention', {});
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(json<{ data: Settings }>(empty).data, cleared, 'an empty body changes nothing');
  });

  test('a malformed RETENTION_* variable stops the start with a message naming it', async () => {
    const { loadConfig } = await import('../../../src/config/index.ts');
    assert.throws(() => loadConfig({ RETENTION_IDEMPOTENCY_HOURS: '12' }, []), /RETENTION_IDEMPOTENCY_HOURS: must be between 24 and 720/);
    assert.throws(() => loadConfig({ RETENTION_WEBHOOK_LOGS_DAYS: '31' }, []), /RETENTION_WEBHOOK_LOGS_DAYS/);
    assert.throws(() => loadConfig({ RETENTION_KYC_DETAILS_DAYS: 'five years' }, []), /RETENTION_KYC_DETAILS_DAYS: must be an integer/);
  });
});
