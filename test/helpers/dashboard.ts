import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { createTestContext, type TestContext, type TestMerchant } from './context.ts';
import type { DashboardClient } from '../http/dashboard/client.ts';

export const dayMs = 86_400_000;

/** A CSV row by column name. */
export type CsvRow = Record<string, string>;

/**
 * The `before` of the dashboard's period-and-CSV suites (issue 16 item 10): a test context, the merchant
 * (live-enabled with `live`) and another merchant whose rows must never appear, and `firstDay`, the
 * test clock's date (YYYY-MM-DD) on which the seeding starts.
 */
export async function openExportSuite(names: { merchant: string; other: string; live?: boolean }): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; firstDay: string }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ name: names.merchant, ...(names.live ? { live: true } : {}) });
  const other = await context.createMerchant({ name: names.other });
  return { context, merchant, other, firstDay: context.clock.now().toISOString().slice(0, 10) };
}

/** The date `offset` days after `firstDay`, as the period fields take it (YYYY-MM-DD). */
export function dayAfter(firstDay: string, offset: number): string {
  return new Date(Date.parse(`${firstDay}T00:00:00.000Z`) + offset * dayMs).toISOString().slice(0, 10);
}

/**
 * A text as an export writes it in a cell: one that starts like a formula (`=`, `+`, `-`, `@`, a tab
 * or a carriage return) gets a leading `'` so a spreadsheet shows it rather than runs it. A random
 * key's last four characters start with `-` one time in 64.
 */
export function csvCell(text: string): string {
  return /^[=+\-@\t\r\uFF1D]/.test(text) ? `'${text}` : text;
}

/** A CSV export as the dashboard answers it (200 and text/csv asserted): its header, its rows by column, its text. */
export async function readCsv(client: DashboardClient, url: string): Promise<{ header: string[]; rows: CsvRow[]; body: string }> {
  const response = await client.get(url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^text\/csv/);
  const header = (parse(response.body, { to: 1 }) as string[][])[0] ?? [];
  return { header, rows: parse(response.body, { columns: true }) as CsvRow[], body: response.body };
}
