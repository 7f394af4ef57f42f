/**
 * `npm run lint:tables`: a module's tables are read and written only by that module (decision 0042).
 * Each table has one owner below; a file of another module that names the table (its drizzle object
 * imported from `src/db/schema/index.ts`, or its SQL name after from/into/update/join) fails, except
 * the dashboard's read models (`src/modules/dashboard/presenters/`) and the debts listed in
 * `knownReads`, which are to be moved behind their owners (decision 0049) and never added to; a
 * listed read no longer made fails too, so the list only shrinks. A table without an owner here
 * fails too: a new table names its module in this file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../src/db/schema/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modulesDirectory = path.join(root, 'src', 'modules');

/** Table → owning module (`src` for the platform's own tables, `any` for per-provider sandbox rows). */
export const tableOwners: Record<string, string> = {
  merchants: 'merchants',
  api_keys: 'merchants',
  merchant_pii_keys: 'merchants',
  merchant_branding: 'merchants',
  dashboard_users: 'merchants',
  dashboard_sessions: 'dashboard',
  dashboard_two_factor: 'dashboard',
  dashboard_invites: 'dashboard',
  dashboard_recovery_codes: 'dashboard',
  dashboard_sign_in_challenges: 'dashboard',
  customers: 'customers',
  kyc_verifications: 'kyc',
  kyc_reviews: 'kyc',
  ledger_accounts: 'ledger',
  ledger_transactions: 'ledger',
  ledger_entries: 'ledger',
  events: 'events',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_delivery_attempts: 'webhooks',
  emails: 'email',
  payout_pages: 'payout-pages',
  payout_attempts: 'payout-pages',
  payout_page_status_history: 'payout-pages',
  payout_page_access_codes: 'payout-pages',
  payout_page_sessions: 'payout-pages',
  payment_pages: 'payment-pages',
  payments: 'payments',
  card_tokens: 'payments',
  refunds: 'refunds',
  disputes: 'disputes',
  fraud_reports: 'fraud-reports',
  fraud_imports: 'fraud-reports',
  subscriptions: 'subscriptions',
  invoices: 'subscriptions',
  entitlements: 'entitlements',
  retention_settings: 'retention',
  audit_events: 'audit',
  jobs: 'src',
  idempotency_keys: 'src',
  platform_settings: 'src',
  sandbox_provider_records: 'any',
};

/** Reads of another module's table still to be moved behind the owner (docs/ARCHITECTURE.md, decision 0049): `file table`. */
export const knownReads = new Set<string>([]);

const tableOfExport = new Map<string, string>();
for (const [name, value] of Object.entries(schema)) {
  if (is(value, PgTable)) {
    tableOfExport.set(name, getTableName(value));
  }
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const child = path.join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(child) : /(?<!\.test)\.tsx?$/.test(entry.name) ? [child] : [];
  });
}

/** The tables a file names: drizzle objects imported from the schema, and SQL names in statements. */
export function tablesNamedIn(source: string): Set<string> {
  const named = new Set<string>();
  for (const match of source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'[./]*db\/schema\/index\.ts'/g)) {
    for (const item of (match[1] ?? '').split(',')) {
      const table = tableOfExport.get(item.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0]?.trim() ?? '');
      if (table) {
        named.add(table);
      }
    }
  }
  for (const table of tableOfExport.values()) {
    if (new RegExp(`\\b(from|into|update|join)\\s+"?${table}"?\\b`, 'i').test(source)) {
      named.add(table);
    }
  }
  return named;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems: string[] = [];
  for (const table of tableOfExport.values()) {
    if (!tableOwners[table]) {
      problems.push(`table ${table} has no owner: name its module in bin/check-table-ownership.ts`);
    }
  }
  const stillRead = new Set<string>();
  for (const file of sourceFiles(modulesDirectory)) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const module = relative.split('/')[2] ?? '';
    if (relative.startsWith('src/modules/dashboard/presenters/')) {
      continue;
    }
    for (const table of tablesNamedIn(fs.readFileSync(file, 'utf8'))) {
      stillRead.add(`${relative} ${table}`);
      const owner = tableOwners[table];
      if (owner && owner !== module && owner !== 'any' && !knownReads.has(`${relative} ${table}`)) {
        problems.push(`${relative} uses ${table}, a table of ${owner === 'src' ? 'the platform (src/)' : `the ${owner} module`}: go through its index.ts`);
      }
    }
  }
  for (const read of knownReads) {
    if (!stillRead.has(read)) {
      problems.push(`${read.replace(' ', ' no longer uses ')}: delete it from knownReads in bin/check-table-ownership.ts`);
    }
  }
  for (const problem of problems) {
    process.stderr.write(`${problem}\n`);
  }
  if (problems.length > 0) {
    process.exitCode = 1;
  } else {
    process.stdout.write(`Every table of the ${tableOfExport.size} is used by its owner only (besides the dashboard's read models and ${knownReads.size} known reads).\n`);
  }
}
