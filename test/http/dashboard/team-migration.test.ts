import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { migrationsFolder } from '../../../src/db/client.ts';
import { dashboardUsers } from '../../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';

/** drizzle wraps the database's error ("Failed query: …"); its cause carries the database's words. */
function causedBy(pattern: RegExp) {
  return (error: unknown): boolean => pattern.test(String((error as { cause?: unknown }).cause ?? ''));
}

const migrationTag = '0028_team_roles_and_invites';

/** The migration's statements about `dashboard_users` (the role column and its check), as the migrator runs them. */
function roleStatements(): string[] {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  assert.ok(journal.entries.some((entry) => entry.tag === migrationTag), `the journal has ${migrationTag}`);
  return fs
    .readFileSync(path.join(migrationsFolder, `${migrationTag}.sql`), 'utf8')
    .split('--> statement-breakpoint')
    .map((statement) => statement.trim())
    .filter((statement) => /^(-- .*\n)?ALTER TABLE "dashboard_users"/.test(statement));
}

/**
 * Migration 0026 on data: dashboard users that existed before roles (seeded, then the role column
 * removed as it was before) all become owners; afterwards the column has no default, so code that
 * creates a user must name the role, and the check refuses an unknown one.
 */
describe('migration 0026: existing dashboard users become owners', () => {
  let context: TestContext;
  const merchants: TestMerchant[] = [];

  before(async () => {
    context = await createTestContext();
    merchants.push(await context.createMerchant(), await context.createMerchant());
    await context.database.db.execute(sql`alter table dashboard_users drop constraint dashboard_users_role_known`);
    await context.database.db.execute(sql`alter table dashboard_users drop column role`);
    const statements = roleStatements();
    assert.equal(statements.length, 3, statements.join('\n'));
    for (const statement of statements) {
      await context.database.db.execute(sql.raw(statement));
    }
  });
  after(async () => context.close());

  test('every earlier user is an owner, and they sign in as one', async () => {
    for (const merchant of merchants) {
      const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, merchant.dashboardUser.email));
      assert.equal(user?.role, 'owner');
    }
  });

  test('no default afterwards, and only the five roles', async () => {
    const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, merchants[0]?.dashboardUser.email ?? ''));
    assert.ok(user);
    const now = new Date();
    await assert.rejects(
      context.database.db.execute(sql`insert into dashboard_users (id, merchant_id, email, password_hash, created_at, updated_at) values ('usr_nodefault', ${user.merchantId}, 'nodefault@example.com', 'x', ${now.toISOString()}, ${now.toISOString()})`),
      causedBy(/null value in column "role"/),
    );
    await assert.rejects(
      context.database.db.update(dashboardUsers).set({ role: 'superuser' as 'owner' }).where(eq(dashboardUsers.id, user.id)),
      causedBy(/dashboard_users_role_known/),
    );
  });
});
