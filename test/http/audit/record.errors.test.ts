import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { auditEvents } from '../../../src/db/schema/index.ts';

describe('audit log: what is recorded stays as it was', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Audited Sails' });
  });
  after(async () => context.close());

  test('rows cannot be changed or removed: UPDATE, DELETE and TRUNCATE are refused by the database', async () => {
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'audited-1', signupAt: 1_700_000_000_000 } });
    assert.equal(created.statusCode, 200, created.body);
    await context.platform.services.audit.flush();
    const [row] = await context.database.db.select().from(auditEvents).limit(1);
    assert.ok(row);
    /** Drizzle wraps the database's error: the trigger's message is its cause's. */
    const refused = (error: unknown) => /audit events are append-only/.test(String((error as { cause?: unknown }).cause));
    await assert.rejects(context.database.db.update(auditEvents).set({ outcome: 'SUCCEEDED', address: '0.0.0.0' }).where(eq(auditEvents.id, row.id)), refused);
    await assert.rejects(context.database.db.delete(auditEvents).where(eq(auditEvents.id, row.id)), refused);
    await assert.rejects(context.database.db.execute(sql`truncate audit_events`), refused);
    const [still] = await context.database.db.select().from(auditEvents).where(eq(auditEvents.id, row.id));
    assert.deepEqual(still, row);
  });
});
