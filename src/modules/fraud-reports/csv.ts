import { finished } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse';
import { wrongParameter } from '../../http/errors.ts';
import { parseReportDate } from './dates.ts';
import { normalizeFraudType, type FraudNetwork } from './networks.ts';
import { parseDecimalToCents, usdRatesMicros } from './rates.ts';

/**
 * The issuer-fraud file layouts, one per network (docs/guides/fraud-reports.md). A header row naming the
 * columns is required; columns may come in any order; unknown or missing columns reject the file.
 */
export const fraudFileLayouts: Readonly<Record<FraudNetwork, { reference: string; bin: string; last4: string; fraudType: string; reportedDate: string; columns: readonly string[] }>> = {
  visa: {
    reference: 'transaction_id',
    bin: 'card_bin',
    last4: 'card_last4',
    fraudType: 'fraud_type',
    reportedDate: 'fraud_reported_date',
    columns: ['transaction_id', 'card_bin', 'card_last4', 'transaction_date', 'transaction_amount', 'transaction_currency', 'fraud_type', 'fraud_reported_date', 'fraud_amount', 'fraud_currency'],
  },
  mastercard: {
    reference: 'banknet_reference',
    bin: 'card_bin',
    last4: 'card_last4',
    fraudType: 'fraud_type_code',
    reportedDate: 'fraud_posted_date',
    columns: ['banknet_reference', 'card_bin', 'card_last4', 'transaction_date', 'transaction_amount', 'transaction_currency', 'fraud_type_code', 'fraud_posted_date', 'fraud_amount', 'fraud_currency'],
  },
};

export const maxFraudFileRows = 20_000;

/** Bytes handed to the parser per turn of the event loop (a few milliseconds of work). */
const chunkBytes = 16 * 1024;

/**
 * RFC 4180 CSV (csv-parse): quoted fields, doubled quotes, CRLF or LF line ends, a leading BOM.
 * Blank lines are skipped; rows keep the line they start on (a quoted field may span lines), and a
 * row with another number of fields than the header is that row's problem, not the file's.
 *
 * csv-parse reads a 1 MiB file in a few hundred milliseconds; the text is fed in small chunks with
 * `setImmediate` between them so that other requests keep being served meanwhile (the load
 * shedder would otherwise see the whole parse as one event-loop stall).
 */
export async function parseCsv(text: string): Promise<Array<{ line: number; cells: string[] }>> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  // The line the next record starts on: one past the line the previous record (blank or not) ended on.
  let nextLine = 1;
  const parser = parse({
    bom: true,
    record_delimiter: ['\r\n', '\n'],
    relax_column_count: true,
    // A quote inside an unquoted field is a character, and spaces around a quoted field are allowed.
    relax_quotes: true,
    trim: true,
    on_record: (cells: string[], context) => {
      if (!(cells.length === 1 && cells[0] === '')) {
        rows.push({ line: nextLine, cells });
      }
      nextLine = context.lines + 1;
      // Kept here rather than emitted: nothing reads the stream's records.
      return null;
    },
  });
  const done = finished(parser.resume());
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length && !parser.destroyed; offset += chunkBytes) {
    parser.write(bytes.subarray(offset, offset + chunkBytes));
    await setImmediate();
  }
  parser.end();
  try {
    await done;
  } catch (error) {
    if (error instanceof CsvError && error.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw wrongParameter('csv', `has an unterminated quoted field starting on line ${nextLine}`);
    }
    if (error instanceof CsvError) {
      throw wrongParameter('csv', `is not valid CSV on line ${nextLine}: ${error.message.replace(/^[^:]*: /, '').slice(0, 200)}`);
    }
    throw error;
  }
  return rows;
}

export interface FraudFileRow {
  line: number;
  networkTransactionId: string | null;
  bin: string;
  last4: string;
  transactionDay: Date;
  transactionAmount: number;
  transactionCurrency: string;
  fraudType: string;
  reportedAt: Date;
  fraudAmount: number;
  fraudCurrency: string;
}

export type ParsedFraudFileRow = { ok: true; row: FraudFileRow } | { ok: false; line: number; reason: string };

/** Parses and checks a whole file; a bad header rejects it, a bad row is reported as that row's problem. */
export async function parseFraudFile(network: FraudNetwork, csv: string): Promise<ParsedFraudFileRow[]> {
  const layout = fraudFileLayouts[network];
  const rows = await parseCsv(csv);
  const [header, ...data] = rows;
  if (!header) {
    throw wrongParameter('csv', 'is empty; the first line must be the header row');
  }
  const names = header.cells.map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!layout.columns.includes(name)) {
      throw wrongParameter('csv', `has an unknown column '${name.slice(0, 40)}' for the ${network} layout (expected ${layout.columns.join(',')})`);
    }
  }
  for (const column of layout.columns) {
    if (!names.includes(column)) {
      throw wrongParameter('csv', `is missing the column '${column}' of the ${network} layout`);
    }
  }
  if (data.length > maxFraudFileRows) {
    throw wrongParameter('csv', `must have at most ${maxFraudFileRows} rows`);
  }
  return data.map(({ line, cells }) => {
    const value = (column: string) => (cells[names.indexOf(column)] ?? '').trim();
    const invalid = (column: string, rule: string): ParsedFraudFileRow => ({ ok: false, line, reason: `invalid: ${column} ${rule}` });
    if (cells.length !== names.length) {
      return { ok: false, line, reason: `invalid: has ${cells.length} fields, the header has ${names.length}` };
    }
    const reference = value(layout.reference);
    if (reference !== '' && !/^[A-Za-z0-9]{6,40}$/.test(reference)) {
      return invalid(layout.reference, 'must be 6-40 letters or digits');
    }
    const bin = value(layout.bin);
    if (!/^\d{6}$/.test(bin)) {
      return invalid(layout.bin, 'must be the first 6 digits of the card');
    }
    const last4 = value(layout.last4);
    if (!/^\d{4}$/.test(last4)) {
      return invalid(layout.last4, 'must be the last 4 digits of the card');
    }
    const transactionDate = parseReportDate(value('transaction_date'), { allowDateOnly: true });
    if (!transactionDate) {
      return invalid('transaction_date', 'must be YYYY-MM-DD (UTC)');
    }
    const transactionAmount = parseDecimalToCents(value('transaction_amount'));
    if (transactionAmount === null || transactionAmount === 0) {
      return invalid('transaction_amount', 'must be a positive decimal amount with at most two places');
    }
    const transactionCurrency = value('transaction_currency').toUpperCase();
    if (usdRatesMicros[transactionCurrency] === undefined) {
      return invalid('transaction_currency', `must be one of ${Object.keys(usdRatesMicros).join(', ')}`);
    }
    const fraudType = normalizeFraudType(network, value(layout.fraudType));
    if (fraudType === null) {
      return invalid(layout.fraudType, `is not a ${network === 'visa' ? 'Visa TC40' : 'Mastercard SAFE'} fraud type code`);
    }
    const reportedAt = parseReportDate(value(layout.reportedDate), { allowDateOnly: true });
    if (!reportedAt) {
      return invalid(layout.reportedDate, "must be YYYY-MM-DD or 'YYYY-MM-DD hh:mm:ss' (UTC)");
    }
    let fraudAmount = transactionAmount;
    let fraudCurrency = transactionCurrency;
    if (value('fraud_amount') !== '') {
      const parsed = parseDecimalToCents(value('fraud_amount'));
      if (parsed === null) {
        return invalid('fraud_amount', 'must be a decimal amount with at most two places');
      }
      fraudAmount = parsed;
      fraudCurrency = value('fraud_currency') === '' ? transactionCurrency : value('fraud_currency').toUpperCase();
      if (usdRatesMicros[fraudCurrency] === undefined) {
        return invalid('fraud_currency', `must be one of ${Object.keys(usdRatesMicros).join(', ')}`);
      }
    }
    const day = new Date(Date.UTC(transactionDate.getUTCFullYear(), transactionDate.getUTCMonth(), transactionDate.getUTCDate()));
    return {
      ok: true,
      row: { line, networkTransactionId: reference === '' ? null : reference, bin, last4, transactionDay: day, transactionAmount, transactionCurrency, fraudType, reportedAt, fraudAmount, fraudCurrency },
    };
  });
}
