import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { payments } from '../../src/db/schema/index.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { createPage, payPage, type PageBody } from './payment-pages.ts';

export interface ImportBody {
  import: { id: string; network: string; livemode: boolean; rows: number; created: number; duplicates: number; unmatched: number; createdAt: number };
  createdReports: Array<{ line: number; checkoutPaymentId: string }>;
  duplicateRows: Array<{ line: number; checkoutPaymentId: string }>;
  unmatchedRows: Array<{ line: number; reason: string; networkTransactionId?: string; cardNumber?: string; transactionDate?: string; transactionAmount?: number; transactionCurrency?: string }>;
}

/** A report as GET /v1/fraud_reports/:id answers it, the fields the import tests read. */
export interface ImportedReport {
  checkoutPaymentId: string;
  fraudAmountUSD: string;
  fraudReason: string;
  fraudIssueDate: string;
  fraudType: string | null;
  network: string;
  cardNumber: string;
}

/** The CSV header rows of the two networks' layouts (docs/guides/fraud-reports.md, CSV layouts). */
export const visaHeader = 'transaction_id,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type,fraud_reported_date,fraud_amount,fraud_currency';
export const mastercardHeader = 'banknet_reference,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type_code,fraud_posted_date,fraud_amount,fraud_currency';

export interface FraudReport {
  checkoutPaymentId: string;
  clientReferenceId: string;
  fraudAmountUSD: string;
  fraudReason: string;
  fraudIssueDate: string;
  transactionDate: string;
  issuingBank: string;
  cardholderName: string;
  customerEmail: string;
  cardSchemeType: string;
  cardNumber: string;
  network: string;
  fraudType: string | null;
}

export interface FraudReportList {
  checkoutFraudReports: FraudReport[];
  count: number;
  hasMore: boolean;
}

/** Exactly the fields of a report, sorted. */
export const reportKeys = [
  'checkoutPaymentId',
  'clientReferenceId',
  'fraudAmountUSD',
  'fraudReason',
  'fraudIssueDate',
  'transactionDate',
  'issuingBank',
  'cardholderName',
  'customerEmail',
  'cardSchemeType',
  'cardNumber',
  'network',
  'fraudType',
].sort();

/** A fraud report date: `YYYY-MM-DD hh:mm:ss`, UTC. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The calls of the fraud import tests (POST /admin/v1/fraud_imports), as the suite's merchant: `current`
 * is read at each call, since the suite's context and merchant are set in `before`.
 */
export function fraudImportCalls(current: () => { context: TestContext; merchant: TestMerchant }) {
  const context = () => current().context;
  return {
    async paid(card: string, amount: number, currency = 'USD'): Promise<{ page: PageBody; networkTransactionId: string }> {
      const page = await createPage(context(), current().merchant, { amount, currency });
      const response = await payPage(context(), current().merchant, page.id, card);
      assert.equal(response.statusCode, 200, response.body);
      const body = json<{ data: PageBody }>(response).data;
      const [payment] = await context().database.db.select().from(payments).where(eq(payments.id, String(body.paymentId)));
      return { page: body, networkTransactionId: String(payment?.networkTransactionId) };
    },

    importFile(body: Record<string, unknown>, authorization = 'admin') {
      if (authorization === 'admin') {
        return context().admin('POST', '/admin/v1/fraud_imports', body);
      }
      return context().request({ method: 'POST', url: '/admin/v1/fraud_imports', body, headers: authorization === '' ? {} : { authorization } });
    },

    async reportOf(paymentId: string): Promise<ImportedReport> {
      const response = await context().request({ method: 'GET', url: `/v1/fraud_reports/${paymentId}`, apiKey: current().merchant.apiKey });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: { checkoutFraudReport: ImportedReport } }>(response).data.checkoutFraudReport;
    },

    async fraudEventCount(paymentId: string): Promise<number> {
      const rows = await queryRows<{ count: number }>(context().database.db, sql`select count(*)::int as count from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paymentId}`);
      return rows[0]?.count ?? 0;
    },
  };
}

/** The calls of the fraud report tests (the test helper and the reads); `current` is read at each call. */
export function fraudReportCalls(current: () => TestContext) {
  return {
    async paidPage(owner: TestMerchant, card: string, overrides: Record<string, unknown> = {}, cardOverrides: Record<string, unknown> = {}): Promise<PageBody> {
      const page = await createPage(current(), owner, overrides);
      const response = await payPage(current(), owner, page.id, card, cardOverrides);
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: PageBody }>(response).data;
    },

    report(owner: TestMerchant, body: Record<string, unknown>, query = '?livemode=false') {
      return current().request({ method: 'POST', url: `/v1/test_helpers/fraud_reports${query}`, apiKey: owner.apiKey, body });
    },

    list(owner: TestMerchant, query: string) {
      return current().request({ method: 'GET', url: `/v1/fraud_reports${query}`, apiKey: owner.apiKey });
    },

    async fraudEvents(paymentId: string) {
      return queryRows<{ data: Record<string, unknown> }>(current().database.db, sql`select data from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paymentId}`);
    },
  };
}

/** A fraud import suite's `before`: one sandbox merchant, and today's date (UTC) on the test clock. */
export async function openFraudImportSuite(): Promise<{ context: TestContext; merchant: TestMerchant; day: string }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), day: context.clock.now().toISOString().slice(0, 10) };
}

/** A fraud reports suite's `before`: a sandbox merchant, another (scoping) and a live-enabled one. */
export async function openFraudReportSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), other: await context.createMerchant(), live: await context.createMerchant({ live: true }) };
}
