import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableOwners, tablesNamedIn } from '../../bin/check-table-ownership.ts';

test('table ownership: a table is found by its drizzle object (renamed or type-only too) and by its SQL name in a statement', () => {
  const source = [
    "import { customers, payments as paymentRecords } from '../../db/schema/index.ts';",
    "import type { kycVerifications } from '../../db/schema/index.ts';",
    'const statement = sql`insert into emails (id) select id from "webhook_endpoints" join ledger_entries on true`;',
    '// the events of a payment are read elsewhere',
  ].join('\n');
  assert.deepEqual([...tablesNamedIn(source)].sort(), ['customers', 'emails', 'kyc_verifications', 'ledger_entries', 'payments', 'webhook_endpoints']);
});

test('table ownership: every table of the schema has an owner', async () => {
  const { getTableName, is } = await import('drizzle-orm');
  const { PgTable } = await import('drizzle-orm/pg-core');
  const schema = await import('../../src/db/schema/index.ts');
  const tables = Object.values(schema).flatMap((value) => (is(value, PgTable) ? [getTableName(value)] : []));
  assert.ok(tables.length > 30);
  assert.deepEqual(tables.filter((table) => !tableOwners[table]), []);
});
