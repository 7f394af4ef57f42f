import { and, asc, count, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { fraudImports, fraudReports } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, resealFields, sealFields, type PiiLocation } from '../../crypto/pii.ts';
import { resealTable, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { recordEvent } from '../events/index.ts';
import type { Merchant } from '../merchants/index.ts';
import type { FraudCandidate, PaymentsService } from '../payments/index.ts';
import { maskCardNumber, type NetworkFraudSignal } from '../card-processor/index.ts';
import { parseFraudFile, type FraudFileRow } from './csv.ts';
import { formatReportDate, parseReportDate } from './dates.ts';
import { fraudReasonFor, networkScheme, type FraudNetwork } from './networks.ts';
import { formatCents, parseDecimalToCents, toUsdString } from './rates.ts';
import type { FraudImportInput, FraudImportResultResponse, FraudReportListInput, FraudReportResponse, FraudReportTestInput } from './schemas.ts';

export type FraudReportRow = typeof fraudReports.$inferSelect;

type PaymentLookup = Pick<PaymentsService, 'findPaymentsForFraud' | 'revealPaymentPii'>;

/** An early fraud warning from the card processor, about one of our payments. */
export interface ProcessorFraudWarning {
  paymentId: string;
  livemode: boolean;
  /** Our scheme name of the card's network (`VISA`, …), from the processor's card brand. */
  network: string;
  fraudType: string;
  fraudReason: string;
  reportedAt: Date;
  source: FraudReportRow['source'];
}

interface ReportFields {
  fraudAmountUsd: string;
  fraudReason: string;
  fraudType: string | null;
  source: FraudReportRow['source'];
  importId: string | null;
  fraudIssueDate: Date;
}

function location(row: { merchantId: string; paymentId: string }): PiiLocation {
  return { merchantId: row.merchantId, table: 'fraud_reports', rowId: row.paymentId };
}

function truncateToSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/**
 * Fraud reports (docs/API.md §10): one per card payment (the payment id is the primary key, so a
 * repeated signal never makes a second report), from the sandbox test helper, the sandbox network's
 * signal for the fraud test card, and the operator's import of the networks' issuer-fraud files.
 * Each new report records FRAUD_REPORTED in the same transaction.
 */
export function createFraudReportsService(deps: { database: Database; clock: Clock; keyRing: KeyRing; payments: PaymentLookup }) {
  const { database, clock, keyRing, payments } = deps;

  function toResponse(row: FraudReportRow): FraudReportResponse {
    const pii = openFields(keyRing, location(row), row.pii);
    return {
      checkoutPaymentId: row.paymentId,
      clientReferenceId: row.clientReferenceId,
      fraudAmountUSD: row.fraudAmountUsd,
      fraudReason: row.fraudReason,
      fraudIssueDate: formatReportDate(row.fraudIssueDate),
      transactionDate: formatReportDate(row.transactionDate),
      issuingBank: row.issuingBank,
      cardholderName: pii.cardholderName ?? '',
      customerEmail: pii.customerEmail ?? '',
      cardSchemeType: row.cardSchemeType,
      cardNumber: maskCardNumber(row.bin, row.last4),
      network: row.network,
      fraudType: row.fraudType,
    };
  }

  /** Inserts the payment's report unless it has one; the event is recorded only for a new report. */
  async function insertReport(tx: Executor, candidate: FraudCandidate, fields: ReportFields, now: Date): Promise<{ row: FraudReportRow; created: boolean }> {
    const pii = await payments.revealPaymentPii(tx, candidate.paymentId);
    const plain: Record<string, string> = {};
    if (pii.cardholderName !== '') {
      plain.cardholderName = pii.cardholderName;
    }
    if (pii.customerEmail !== '') {
      plain.customerEmail = pii.customerEmail;
    }
    const clientReferenceId = candidate.clientReferenceId ?? '';
    const [inserted] = await tx
      .insert(fraudReports)
      .values({
        paymentId: candidate.paymentId,
        merchantId: candidate.merchantId,
        livemode: candidate.livemode,
        pageId: candidate.pageId,
        clientReferenceId,
        fraudAmountUsd: fields.fraudAmountUsd,
        fraudReason: fields.fraudReason,
        fraudType: fields.fraudType,
        network: candidate.scheme ?? 'UNKNOWN',
        source: fields.source,
        importId: fields.importId,
        fraudIssueDate: truncateToSecond(fields.fraudIssueDate),
        transactionDate: truncateToSecond(candidate.decidedAt ?? now),
        issuingBank: candidate.issuer ?? 'Unknown issuer',
        cardSchemeType: candidate.cardType === 'DEBIT' || candidate.cardType === 'PREPAID' ? 'DEBIT' : 'CREDIT',
        bin: candidate.bin,
        last4: candidate.last4,
        pii: sealFields(keyRing, location({ merchantId: candidate.merchantId, paymentId: candidate.paymentId }), plain),
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!inserted) {
      const [existing] = await tx.select().from(fraudReports).where(eq(fraudReports.paymentId, candidate.paymentId));
      if (!existing) {
        throw new Error(`fraud report for ${candidate.paymentId} neither inserted nor found`);
      }
      return { row: existing, created: false };
    }
    // Exactly the event fields docs/guides/fraud-reports.md shows; nothing that leaks PII.
    await recordEvent(tx, now, {
      merchantId: candidate.merchantId,
      livemode: candidate.livemode,
      type: 'FRAUD_REPORTED',
      data: { pageId: candidate.pageId, clientReferenceId, fraudReportId: candidate.paymentId, fraudReason: fields.fraudReason },
    });
    return { row: inserted, created: true };
  }

  async function matchRow(tx: Executor, network: FraudNetwork, livemode: boolean, row: FraudFileRow): Promise<FraudCandidate[]> {
    const scheme = networkScheme[network];
    if (row.networkTransactionId !== null) {
      const byReference = await payments.findPaymentsForFraud(tx, { networkTransactionId: row.networkTransactionId, scheme, livemode });
      if (byReference.length > 0) {
        return byReference;
      }
    }
    return payments.findPaymentsForFraud(tx, {
      bin: row.bin,
      last4: row.last4,
      amount: row.transactionAmount,
      currency: row.transactionCurrency,
      day: row.transactionDay,
      scheme,
      livemode,
    });
  }

  return {
    toResponse,

    /** Sandbox: reports fraud on one of the merchant's successful sandbox payments. */
    async createTestReport(merchant: Merchant, input: FraudReportTestInput): Promise<{ report: FraudReportResponse; created: boolean }> {
      const now = clock.now();
      const fraudReason = input.fraudReason.trim();
      if (fraudReason === '') {
        throw wrongParameter('fraudReason', 'must not be blank');
      }
      let fraudAmountUsd: string | null = null;
      if (input.fraudAmountUSD !== undefined) {
        const cents = parseDecimalToCents(String(input.fraudAmountUSD));
        if (cents === null || cents <= 0 || cents > 99_999_999_999_999) {
          throw wrongParameter('fraudAmountUSD', 'must be a positive US dollar amount with at most two decimal places');
        }
        fraudAmountUsd = formatCents(cents);
      }
      return database.transaction(async (tx) => {
        // The helper works in sandbox only (the route refuses livemode=true): a live payment's id is
        // looked up in sandbox and, like any id not there, is not found (docs/API.md §1, no existence leak).
        const [candidate] = (await payments.findPaymentsForFraud(tx, { paymentId: input.paymentId })).filter((payment) => payment.merchantId === merchant.id && !payment.livemode);
        if (!candidate) {
          throw notFound('payment', input.paymentId);
        }
        if (candidate.status !== 'SUCCEEDED') {
          throw new AppError('INVALID_STATE', `Payment ${candidate.paymentId} is ${candidate.status}; only successful card payments can be reported as fraud`);
        }
        const { row, created } = await insertReport(
          tx,
          candidate,
          { fraudAmountUsd: fraudAmountUsd ?? toUsdString(candidate.amount, candidate.currency), fraudReason, fraudType: null, source: 'TEST_HELPER', importId: null, fraudIssueDate: now },
          now,
        );
        return { report: toResponse(row), created };
      });
    },

    /**
     * A card network's fraud signal for one transaction (the sandbox network's signal for the fraud
     * test card). Throws while the payment it names is not recorded yet, so the job retries.
     */
    async recordNetworkSignal(tx: Executor, signal: NetworkFraudSignal, now: Date): Promise<void> {
      const candidates = await payments.findPaymentsForFraud(tx, { networkTransactionId: signal.networkTransactionId, scheme: signal.network, livemode: signal.livemode });
      const [candidate] = candidates;
      if (!candidate || candidates.length !== 1) {
        throw new Error(`no single successful payment with network transaction id ${signal.networkTransactionId} yet`);
      }
      await insertReport(
        tx,
        candidate,
        {
          fraudAmountUsd: toUsdString(candidate.amount, candidate.currency),
          fraudReason: fraudReasonFor(signal.network, signal.fraudType),
          fraudType: signal.fraudType,
          source: 'SANDBOX_NETWORK',
          importId: null,
          fraudIssueDate: signal.reportedAt,
        },
        now,
      );
    },

    /**
     * A card processor's early fraud warning on one of our payments (Stripe Radar): one report per
     * payment, so a second warning changes nothing. Throws while the payment is not a settled
     * successful one of `livemode`, so the job retries.
     */
    async recordProcessorWarning(warning: ProcessorFraudWarning): Promise<{ created: boolean }> {
      return database.transaction(async (tx) => {
        const now = clock.now();
        const [candidate] = await payments.findPaymentsForFraud(tx, { paymentId: warning.paymentId });
        if (!candidate || candidate.status !== 'SUCCEEDED' || candidate.livemode !== warning.livemode) {
          throw new Error(`early fraud warning: payment ${warning.paymentId} is not a settled successful payment (yet)`);
        }
        const fields = { fraudAmountUsd: toUsdString(candidate.amount, candidate.currency), fraudReason: warning.fraudReason, fraudType: warning.fraudType, source: warning.source, importId: null, fraudIssueDate: warning.reportedAt };
        const { created } = await insertReport(tx, { ...candidate, scheme: warning.network }, fields, now);
        return { created };
      });
    },

    /**
     * Imports a network's issuer-fraud file (admin API and CLI). Rows are matched to successful
     * payments by network transaction id, else by BIN + last 4 + amount + transaction date; rows
     * that match nothing, or more than one payment, are reported back and never guessed.
     * `onProgress` (the CLI's progress bar) hears rows handled of all; they commit together at the end.
     */
    async importNetworkFile(input: FraudImportInput, options: { onProgress?: (done: number, total: number) => void } = {}): Promise<FraudImportResultResponse> {
      const livemode = input.livemode ?? true;
      const parsed = await parseFraudFile(input.network, input.csv);
      const now = clock.now();
      const id = newId('fraudImport', now.getTime());
      const result: FraudImportResultResponse = {
        import: { id, network: input.network, livemode, rows: parsed.length, created: 0, duplicates: 0, unmatched: 0, createdAt: now.getTime() },
        createdReports: [],
        duplicateRows: [],
        unmatchedRows: [],
      };
      await database.transaction(async (tx) => {
        for (const [index, entry] of parsed.entries()) {
          options.onProgress?.(index, parsed.length);
          if (!entry.ok) {
            result.unmatchedRows.push({ line: entry.line, reason: entry.reason });
            continue;
          }
          const { row } = entry;
          const candidates = await matchRow(tx, input.network, livemode, row);
          const [candidate] = candidates;
          if (!candidate || candidates.length > 1) {
            result.unmatchedRows.push({
              line: row.line,
              reason: candidate ? `ambiguous: ${candidates.length} payments match; not guessed` : 'no matching payment',
              ...(row.networkTransactionId !== null ? { networkTransactionId: row.networkTransactionId } : {}),
              cardNumber: maskCardNumber(row.bin, row.last4),
              transactionDate: formatReportDate(row.transactionDay).slice(0, 10),
              transactionAmount: row.transactionAmount,
              transactionCurrency: row.transactionCurrency,
            });
            continue;
          }
          const { created } = await insertReport(
            tx,
            candidate,
            {
              fraudAmountUsd: toUsdString(row.fraudAmount, row.fraudCurrency),
              fraudReason: fraudReasonFor(networkScheme[input.network], row.fraudType),
              fraudType: row.fraudType,
              source: 'IMPORT',
              importId: id,
              fraudIssueDate: row.reportedAt,
            },
            now,
          );
          (created ? result.createdReports : result.duplicateRows).push({ line: row.line, checkoutPaymentId: candidate.paymentId });
        }
        options.onProgress?.(parsed.length, parsed.length);
        result.import.created = result.createdReports.length;
        result.import.duplicates = result.duplicateRows.length;
        result.import.unmatched = result.unmatchedRows.length;
        await tx.insert(fraudImports).values({
          id,
          network: input.network,
          livemode,
          totalRows: parsed.length,
          createdCount: result.import.created,
          duplicateCount: result.import.duplicates,
          unmatchedCount: result.import.unmatched,
          unmatched: result.unmatchedRows,
          createdAt: now,
        });
      });
      return result;
    },

    async getReport(merchant: Merchant, livemode: boolean | undefined, id: string): Promise<FraudReportResponse> {
      const conditions: SQL[] = [eq(fraudReports.merchantId, merchant.id), eq(fraudReports.paymentId, id)];
      if (livemode !== undefined) {
        conditions.push(eq(fraudReports.livemode, livemode));
      }
      const [row] = await database.db.select().from(fraudReports).where(and(...conditions));
      if (!row) {
        throw notFound('fraud report', id);
      }
      return toResponse(row);
    },

    /** Newest fraudIssueDate first, then id; `count` is every match, `hasMore` = offset + returned < count. */
    async listReports(merchant: Merchant, livemode: boolean | undefined, query: FraudReportListInput): Promise<{ checkoutFraudReports: FraudReportResponse[]; count: number; hasMore: boolean }> {
      const offset = query['pagination[offset]'] ?? 0;
      const limit = query['pagination[limit]'] ?? 10;
      const conditions: SQL[] = [eq(fraudReports.merchantId, merchant.id)];
      if (livemode !== undefined) {
        conditions.push(eq(fraudReports.livemode, livemode));
      }
      const paymentId = query['filters[checkoutPaymentId]'];
      if (paymentId !== undefined) {
        conditions.push(eq(fraudReports.paymentId, paymentId));
      }
      const startText = query['filters[fraudIssueDateRange][start]'];
      const endText = query['filters[fraudIssueDateRange][end]'];
      const start = startText === undefined ? null : parseReportDate(startText);
      const end = endText === undefined ? null : parseReportDate(endText);
      if (startText !== undefined && !start) {
        throw wrongParameter('filters[fraudIssueDateRange][start]', "must be a real date and time 'YYYY-MM-DD hh:mm:ss' (UTC)");
      }
      if (endText !== undefined && !end) {
        throw wrongParameter('filters[fraudIssueDateRange][end]', "must be a real date and time 'YYYY-MM-DD hh:mm:ss' (UTC)");
      }
      if (start && end && start.getTime() > end.getTime()) {
        throw wrongParameter('filters[fraudIssueDateRange][start]', 'must not be after filters[fraudIssueDateRange][end]');
      }
      if (start) {
        conditions.push(gte(fraudReports.fraudIssueDate, start));
      }
      if (end) {
        conditions.push(lte(fraudReports.fraudIssueDate, end));
      }
      const where = and(...conditions);
      // `desc nulls last` matches the index order exactly (the column is NOT NULL, but the planner
      // only uses an index for ORDER BY … LIMIT when the null ordering is the index's own).
      const [rows, [total]] = await Promise.all([
        database.db.select().from(fraudReports).where(where).orderBy(sql`${fraudReports.fraudIssueDate} desc nulls last`, asc(fraudReports.paymentId)).limit(limit).offset(offset),
        database.db.select({ value: count() }).from(fraudReports).where(where),
      ]);
      const matches = Number(total?.value ?? 0);
      return { checkoutFraudReports: rows.map(toResponse), count: matches, hasMore: offset + rows.length < matches };
    },

    /**
     * Key-ring rotation: re-seals each report's cardholder name and customer e-mail under the active
     * key (same associated data; UPDATE conditional on the ciphertext read). `onProgress`: rows examined of all.
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealTable(database, {
        ...options,
        table: fraudReports,
        columns: { paymentId: fraudReports.paymentId, merchantId: fraudReports.merchantId, pii: fraudReports.pii },
        key: 'paymentId',
        reseal: async (row) => {
          const resealed = resealFields(keyRing, location(row), row.pii);
          if (resealed === null) {
            return false;
          }
          const updated = await database.db
            .update(fraudReports)
            .set({ pii: resealed })
            .where(and(eq(fraudReports.paymentId, row.paymentId), sql`${fraudReports.pii} = ${JSON.stringify(row.pii)}::jsonb`))
            .returning({ paymentId: fraudReports.paymentId });
          return updated.length > 0;
        },
      });
    },
  };
}

export type FraudReportsService = ReturnType<typeof createFraudReportsService>;
