import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inArray } from 'drizzle-orm';
import { idempotencyKeys } from '../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { runInProcess } from './helpers.ts';

const hour = 60 * 60 * 1000;

/** `paysail retention status` and `retention run`, in process on the test context's real platform and database. */
describe('paysail retention', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const cli = (...argv: string[]) => runInProcess(context.platform, argv);

  test('status shows each category with its setting, cutoff and due rows; run purges them; status then shows nothing due', async () => {
    for (const key of ['cli-a', 'cli-b']) {
      const response = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, headers: { 'idempotency-key': key }, body: { referenceId: key, signupAt: 1_700_000_000_000 } });
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.equal((await context.admin('POST', '/admin/v1/retention', { idempotencyRecordsHours: 48 })).statusCode, 200);
    context.clock.advance(48 * hour + 1);
    const now = context.clock.now().getTime();

    const text = await cli('retention', 'status');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^idempotencyRecords\\t48 hours \\(override\\)\\tcutoff ${new Date(now - 48 * hour).toISOString()}\\t2 due$`, 'm'));
    assert.match(text.stdout, new RegExp(`^emailBodies\\t30 days \\(environment\\)\\tcutoff ${new Date(now - 30 * 24 * hour).toISOString()}\\t0 due$`, 'm'));
    assert.match(text.stdout, /^kycDetails\t1825 days \(environment\)\tcutoff \S+\t0 due$/m);
    assert.match(text.stdout, /^webhookDeliveryLogs\t30 days \(environment\)\tcutoff \S+\t0 due$/m);
    assert.match(text.stdout, /^2 rows are due/m);

    const json = await cli('retention', 'status', '--json');
    assert.equal(json.code, 0);
    const entries = JSON.parse(json.stdout) as Array<{ category: string; value: number; source: string; cutoff: string; due: number }>;
    assert.deepEqual(
      entries.map((entry) => [entry.category, entry.due]),
      [
        ['kycDetails', 0],
        ['emailBodies', 0],
        ['webhookDeliveryLogs', 0],
        ['idempotencyRecords', 2],
      ],
    );
    assert.equal(entries.find((entry) => entry.category === 'idempotencyRecords')?.cutoff, new Date(now - 48 * hour).toISOString());

    const run = await cli('retention', 'run');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^idempotencyRecords\tcutoff \S+\t2 purged$/m);
    assert.equal((await context.database.db.select().from(idempotencyKeys).where(inArray(idempotencyKeys.key, ['cli-a', 'cli-b']))).length, 0);

    const again = await cli('retention', 'status');
    assert.match(again.stdout, /^nothing is due$/m);
    const runJson = JSON.parse((await cli('retention', 'run', '--json')).stdout) as Array<{ category: string; purged: number }>;
    assert.ok(runJson.every((result) => result.purged === 0), 'a second run purges nothing');
  });

  test('an unknown option is a usage error (exit 2)', async () => {
    const result = await cli('retention', 'status', '--all');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--all/);
  });
});
