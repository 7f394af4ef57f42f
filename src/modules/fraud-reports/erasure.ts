import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { fraudReports } from '../../db/schema/index.ts';

/**
 * The fraud reports' part of erasing a customer, in the erase transaction: the sealed cardholder
 * name and customer e-mail of the reports on their payments go (the reports then answer them as
 * empty strings); the report itself, its amounts, dates and masked card stay.
 */
export async function eraseFraudReportData(tx: Executor, merchantId: string, paymentIds: readonly string[]): Promise<void> {
  if (paymentIds.length === 0) {
    return;
  }
  await tx
    .update(fraudReports)
    .set({ pii: {} })
    .where(and(eq(fraudReports.merchantId, merchantId), inArray(fraudReports.paymentId, [...paymentIds])));
}
