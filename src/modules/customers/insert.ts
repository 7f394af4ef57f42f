import { sql, type SQL } from 'drizzle-orm';
import { createCoalescedWakeup, jobInsertStatement, notifyInsertedJobs } from '../../jobs/queue.ts';
import { queryNamedRows, type Database, type Executor } from '../../db/client.ts';
import type { customers } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { sealRecord } from '../../crypto/pii.ts';
import { AppError } from '../../http/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { CustomerKyc } from './kyc-port.ts';
import type { KycData } from './rules.ts';
import { emailLookupOf } from './sealing.ts';

export type CustomerRow = typeof customers.$inferSelect;

/** Inserting customers (the API's create, and the pages' find-or-create), with KYC started in the same statement. */
export function createCustomerInsert(deps: { database: Database; keyRing: KeyRing; kyc: () => CustomerKyc }) {
  const { database, keyRing, kyc } = deps;
  let kycWakeup: { request(): void } | null = null;

  /**
   * Inserts a customer and, when its identity data is complete, starts KYC: the customer (already
   * PENDING), its verification, the provider job and the worker wake-up are one SQL statement —
   * atomic on its own, one round trip, and part of the caller's transaction when given one.
   */
  async function insertCustomer(
    executor: Executor,
    merchantId: string,
    livemode: boolean,
    input: { referenceId: string; signupAt: Date; fields: Record<string, string>; supportedPaymentMethods?: string[] },
    now: Date,
    wakeAfterCommit = false,
  ): Promise<CustomerRow> {
    const id = newId('customer', now.getTime());
    const row: CustomerRow = {
      id,
      merchantId,
      livemode,
      referenceId: input.referenceId,
      signupAt: input.signupAt,
      pii: sealRecord(keyRing, { merchantId, table: 'customers', rowId: id }, input.fields),
      emailLookup: emailLookupOf(keyRing, merchantId, input.fields.email),
      supportedPaymentMethods: input.supportedPaymentMethods ?? null,
      supportedPayoutMethods: null,
      kycStatus: 'NOT_STARTED',
      kycReason: null,
      createdAt: now,
      updatedAt: now,
      erasedAt: null,
      kycDetailsPurgedAt: null,
    };
    const plan = kyc().planStart(row, input.fields as KycData, now);
    if (plan) {
      row.kycStatus = 'PENDING';
    }
    const at = now.toISOString();
    const statements: SQL[] = [
      sql`customer as (
        insert into customers (id, merchant_id, livemode, reference_id, signup_at, pii, email_lookup, supported_payment_methods, supported_payout_methods, kyc_status, created_at, updated_at)
        values (${id}, ${merchantId}, ${livemode}::boolean, ${row.referenceId}, ${row.signupAt.toISOString()}::timestamptz, ${JSON.stringify(row.pii)}::jsonb, ${row.emailLookup}::text,
                ${row.supportedPaymentMethods ? JSON.stringify(row.supportedPaymentMethods) : null}::jsonb, null, ${row.kycStatus}, ${at}::timestamptz, ${at}::timestamptz)
        returning id)`,
    ];
    let tail = sql`select id from customer`;
    if (plan) {
      statements.push(sql`verification as (${plan.insertSelectingCustomerFrom('customer')})`);
      if (plan.job) {
        statements.push(sql`job as (${jobInsertStatement(now, plan.job.queue, plan.job.payload, plan.job.options)})`);
        // In the caller's transaction the NOTIFY rides along (delivered on its commit); a statement
        // committing on its own wakes the workers afterwards through the coalesced wake-up.
        tail = wakeAfterCommit ? sql`select id from job` : notifyInsertedJobs('job');
        kycWakeup ??= createCoalescedWakeup(database, plan.job.queue);
      }
    }
    try {
      // Named per shape (KYC started, with a job, how workers are woken): parsed once per connection.
      const shape = `${plan ? (plan.job ? 'kyc_job' : 'kyc') : 'plain'}${plan?.job ? (wakeAfterCommit ? '_wake' : '_notify') : ''}`;
      await queryNamedRows(executor, `customers_insert_${shape}`, sql`with ${sql.join(statements, sql`, `)} ${tail}`);
      if (wakeAfterCommit && plan?.job) {
        kycWakeup?.request();
      }
    } catch (error) {
      if (isUniqueViolation(error, 'customers_reference_unique')) {
        throw new AppError('DUPLICATE_REFERENCE_ID', `A customer with referenceId '${input.referenceId.slice(0, 255)}' already exists in this mode`);
      }
      throw error;
    }
    return row;
  }

  return insertCustomer;
}
