import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { auditEvents } from '../../src/db/schema/index.ts';
import { runInProcess } from './helpers.ts';

/** Issue 18 item 13: the operator's state changes through the CLI are audit entries too (actor operator, address `cli`). */
describe('CLI: state-changing commands are recorded in the audit log', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const countRows = async () => Number((await context.database.db.select({ count: sql<number>`count(*)::int` }).from(auditEvents))[0]?.count ?? 0);

  test('merchants enable-live: one SUCCEEDED entry on the merchant; a refused key revocation: one FAILED entry with its error code', async () => {
    assert.equal((await runInProcess(context.platform, ['merchants', 'enable-live', merchant.id])).code, 0);
    const revoked = await runInProcess(context.platform, ['keys', 'revoke', merchant.id, 'key_unknown']);
    assert.equal(revoked.code, 1, revoked.stderr);
    const rows = await context.database.db.select().from(auditEvents).where(eq(auditEvents.merchantId, merchant.id));
    const byAction = new Map(rows.map((row) => [row.action, row]));
    assert.equal(rows.length, 2);
    const enabled = byAction.get('adminMerchants_enableLive');
    assert.ok(enabled);
    assert.deepEqual(
      [enabled.actorType, enabled.actorId, enabled.target, enabled.address, enabled.outcome, enabled.statusCode, enabled.errorCode],
      ['operator', 'operator', merchant.id, 'cli', 'SUCCEEDED', 0, null],
    );
    const refused = byAction.get('adminApiKeys_revoke');
    assert.deepEqual([refused?.target, refused?.outcome, refused?.statusCode, refused?.errorCode], ['key_unknown', 'FAILED', 1, 'NOT_FOUND']);
  });

  test('reads and usage errors are not recorded', async () => {
    const before = await countRows();
    assert.equal((await runInProcess(context.platform, ['merchants', 'list'])).code, 0);
    assert.equal((await runInProcess(context.platform, ['keys', 'list', merchant.id])).code, 0);
    assert.equal((await runInProcess(context.platform, ['merchants', 'enable-live'])).code, 2);
    await context.platform.services.audit.flush();
    assert.equal(await countRows(), before);
  });
});
