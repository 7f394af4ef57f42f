import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openRecord, sealRecord } from '../../crypto/pii.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Merchant, MerchantsService } from '../merchants/index.ts';
import { addressFields, normalizeEmail, payoutMethods, sameMethods, validateAddress, validatePaymentMethods, validateSignupAt, type KycData } from './rules.ts';
import type { CustomerCreateInput, CustomerOrErasedResponse, CustomerResponse, CustomerUpdateInput } from './schemas.ts';
import { createCustomerList } from './list.ts';
import type { CustomerKyc } from './kyc-port.ts';
import { addressToFields, fieldsToAddress, location, normalizeIdentity } from './identity.ts';
import { createCustomerInsert, type CustomerRow } from './insert.ts';
import { createCustomerReads, scope } from './reads.ts';
import { createCustomerResponses } from './responses.ts';
import { createCustomerReencryption, createEmailLookupBackfill, emailLookupOf } from './sealing.ts';

export { normalizeIdentity };
export type { CustomerRow };

const immutableOnUpdate = [
  'referenceId',
  'signupAt',
  'firstName',
  'middleName',
  'lastName',
  'dateOfBirth',
  'phoneNumber',
  'supportedPayoutMethods',
  'id',
  'merchantId',
  'livemode',
  'kycStatus',
  'createdAt',
  'updatedAt',
] as const;

export function createCustomersService(deps: { database: Database; clock: Clock; keyRing: KeyRing; merchants: MerchantsService }) {
  const { database, clock, keyRing, merchants } = deps;
  // KYC is connected after both services exist (`useKyc`, platform.ts); the wake-up is made on first use.
  let connectedKyc: CustomerKyc | null = null;
  const kyc = (): CustomerKyc => {
    if (!connectedKyc) {
      throw new Error('customers: no KYC connected (platform.ts calls customers.useKyc)');
    }
    return connectedKyc;
  };
  const insertCustomer = createCustomerInsert({ database, keyRing, kyc });
  const { responseFromPlaintext, toResponse } = createCustomerResponses({ keyRing, merchants });

  // The read by id is the hottest query: prepared once (SQL built once; a named statement per connection on PostgreSQL).
  const readById = database.db
    .select()
    .from(customers)
    .where(and(eq(customers.id, sql.placeholder('id')), eq(customers.merchantId, sql.placeholder('merchantId'))))
    .prepare('customers_read_by_id');
  const readByIdInMode = database.db
    .select()
    .from(customers)
    .where(and(eq(customers.id, sql.placeholder('id')), eq(customers.merchantId, sql.placeholder('merchantId')), eq(customers.livemode, sql.placeholder('livemode'))))
    .prepare('customers_read_by_id_in_mode');

  /** An erased customer keeps its id and referenceId only: it cannot be changed or paid again. */
  function refuseErased(row: CustomerRow): void {
    if (row.erasedAt) {
      throw new AppError('INVALID_STATE', `Customer ${row.id} (referenceId '${row.referenceId}') was erased: it cannot be updated or receive new pages`);
    }
  }

  async function lockCustomer(tx: Executor, merchantId: string, livemode: boolean | undefined, customerId: string): Promise<CustomerRow> {
    const [row] = await tx.select().from(customers).where(scope(merchantId, livemode, eq(customers.id, customerId))).for('update');
    if (!row) {
      throw notFound('customer', customerId);
    }
    return row;
  }

  return {
    /** Every job queue of this module (the e-mail lookup backfill), registered by platform.ts in one loop. */
    jobs: (): JobDefinition[] => [createEmailLookupBackfill({ database, keyRing }).job()],

    /** Connects KYC (platform.ts): customer creates and identity updates then start verifications through it. */
    useKyc(port: CustomerKyc): void {
      connectedKyc = port;
    },

    toResponse,
    ...createCustomerList({ database, keyRing, toResponse }),
    ...createCustomerReencryption({ database, keyRing }),    ...createCustomerReads({ keyRing }),

    async createCustomer(merchant: Merchant, livemode: boolean, input: CustomerCreateInput): Promise<CustomerResponse> {
      const now = clock.now();
      const signupAt = validateSignupAt('signupAt', input.signupAt, now);
      const fields = normalizeIdentity(input, now);
      if (input.email !== undefined) {
        fields.email = normalizeEmail('email', input.email);
      }
      const supportedPaymentMethods = input.supportedPaymentMethods ? validatePaymentMethods('supportedPaymentMethods', input.supportedPaymentMethods) : undefined;
      // One statement (customer, KYC verification, job, NOTIFY): atomic without BEGIN/COMMIT.
      const row = await insertCustomer(database.db, merchant.id, livemode, { referenceId: input.referenceId, signupAt, fields, ...(supportedPaymentMethods ? { supportedPaymentMethods } : {}) }, now, true);
      return responseFromPlaintext(row, fields, await merchants.activePiiKey(row.merchantId));
    },

    async getCustomer(merchant: Merchant, livemode: boolean | undefined, customerId: string): Promise<CustomerOrErasedResponse> {
      const [row] = livemode === undefined ? await readById.execute({ id: customerId, merchantId: merchant.id }) : await readByIdInMode.execute({ id: customerId, merchantId: merchant.id, livemode });
      if (!row) {
        throw notFound('customer', customerId);
      }
      return toResponse(row);
    },

    async updateCustomer(merchant: Merchant, livemode: boolean | undefined, customerId: string, input: CustomerUpdateInput): Promise<CustomerResponse> {
      const now = clock.now();
      for (const field of immutableOnUpdate) {
        if (input[field] !== undefined) {
          throw new AppError('IMMUTABLE_FIELD', `${field} cannot be changed by an update; only email, address and (while unset) supportedPaymentMethods can`, { field });
        }
      }
      const email = input.email !== undefined ? normalizeEmail('email', input.email) : undefined;
      const requestedMethods = input.supportedPaymentMethods ? validatePaymentMethods('supportedPaymentMethods', input.supportedPaymentMethods) : undefined;
      const { row, fields } = await database.transaction(async (tx) => {
        // Row lock: the address merge and the immutability check read and write the same row.
        const current = await lockCustomer(tx, merchant.id, livemode, customerId);
        refuseErased(current);
        const fields = openRecord(keyRing, location(current), current.pii);
        const before = { ...fields } as KycData;
        if (email !== undefined) {
          fields.email = email;
        }
        if (input.address !== undefined) {
          const merged = validateAddress({ ...fieldsToAddress(fields), ...input.address });
          for (const field of addressFields) {
            delete fields[`address.${field}`];
          }
          Object.assign(fields, addressToFields(merged));
        }
        let supportedPaymentMethods = current.supportedPaymentMethods;
        if (requestedMethods !== undefined) {
          if (supportedPaymentMethods && !sameMethods(supportedPaymentMethods, requestedMethods)) {
            throw new AppError('IMMUTABLE_FIELD', 'supportedPaymentMethods cannot be changed once set', { field: 'supportedPaymentMethods' });
          }
          supportedPaymentMethods = supportedPaymentMethods ?? requestedMethods;
        }
        const [updated] = await tx
          .update(customers)
          .set({ pii: sealRecord(keyRing, location(current), fields), emailLookup: emailLookupOf(keyRing, current.merchantId, fields.email), supportedPaymentMethods, updatedAt: now })
          .where(eq(customers.id, current.id))
          .returning();
        if (!updated) {
          throw notFound('customer', customerId);
        }
        const started = (await kyc().startIfComplete(tx, updated, fields as KycData, now)) ?? (await kyc().reverifyIfChanged(tx, updated, before, fields as KycData, now));
        return { row: started ? { ...updated, kycStatus: started, kycReason: null } : updated, fields };
      });
      return responseFromPlaintext(row, fields, await merchants.activePiiKey(row.merchantId));
    },

    /** Admin: the payout methods a customer may choose on payout pages. */
    async setSupportedPayoutMethods(customerId: string, methods: string[]): Promise<CustomerResponse> {
      for (const method of methods) {
        if (!(payoutMethods as readonly string[]).includes(method)) {
          throw wrongParameter('supportedPayoutMethods', `must contain only ${payoutMethods.join(', ')}`);
        }
      }
      if (new Set(methods).size !== methods.length) {
        throw wrongParameter('supportedPayoutMethods', 'must not contain duplicates');
      }
      const [row] = await database.db
        .update(customers)
        .set({ supportedPayoutMethods: methods, updatedAt: clock.now() })
        .where(and(eq(customers.id, customerId), isNull(customers.erasedAt)))
        .returning();
      if (!row) {
        const [existing] = await database.db.select().from(customers).where(eq(customers.id, customerId));
        if (existing) {
          refuseErased(existing);
        }
        throw notFound('customer', customerId);
      }
      return responseFromPlaintext(row, openRecord(keyRing, location(row), row.pii), await merchants.activePiiKey(row.merchantId));
    },

    /**
     * Erasing (in the erase transaction, after the other modules removed theirs): the sealed PII
     * record and the e-mail lookup go, `erasedAt` is set. Returns the row and whether this call
     * erased it (false: it already was).
     */
    async eraseRecord(tx: Executor, merchantId: string, livemode: boolean | undefined, customerId: string, now: Date): Promise<{ row: CustomerRow; erased: boolean }> {
      const current = await lockCustomer(tx, merchantId, livemode, customerId);
      if (current.erasedAt) {
        return { row: current, erased: false };
      }
      const [row] = await tx.update(customers).set({ pii: {}, emailLookup: null, erasedAt: now, updatedAt: now }).where(eq(customers.id, current.id)).returning();
      return { row: row ?? current, erased: true };
    },

    /** Finds the customer with this referenceId, or creates it (payout and payment pages). */
    async findOrCreateByReference(tx: Executor, merchantId: string, livemode: boolean, input: { referenceId: string; email: string }, now: Date): Promise<CustomerRow> {
      // FOR SHARE: an erase running now commits first, and the row read then says so.
      const [existing] = await tx
        .select()
        .from(customers)
        .where(and(eq(customers.merchantId, merchantId), eq(customers.livemode, livemode), eq(customers.referenceId, input.referenceId)))
        .for('share');
      if (existing) {
        refuseErased(existing);
        return existing;
      }
      return insertCustomer(tx, merchantId, livemode, { referenceId: input.referenceId, signupAt: now, fields: { email: normalizeEmail('customer.email', input.email) } }, now);
    },

    /**
     * Completes a customer's identity data from the hosted KYC form (only fields not yet known are
     * taken) and starts verification when it is complete. Runs in the caller's transaction.
     */
    async completeIdentity(tx: Executor, merchantId: string, customerId: string, input: Partial<CustomerCreateInput>, now: Date): Promise<CustomerRow> {
      const current = await lockCustomer(tx, merchantId, undefined, customerId);
      const fields = openRecord(keyRing, location(current), current.pii);
      const supplied = normalizeIdentity(input, now, 'kyc.');
      for (const [field, value] of Object.entries(supplied)) {
        if (fields[field] === undefined) {
          fields[field] = value;
        }
      }
      const merged = validateAddress(fieldsToAddress(fields));
      Object.assign(fields, addressToFields(merged));
      const [updated] = await tx
        .update(customers)
        .set({ pii: sealRecord(keyRing, location(current), fields), emailLookup: emailLookupOf(keyRing, current.merchantId, fields.email), updatedAt: now })
        .where(eq(customers.id, current.id))
        .returning();
      if (!updated) {
        throw notFound('customer', customerId);
      }
      const started = await kyc().startIfComplete(tx, updated, fields as KycData, now);
      return started ? { ...updated, kycStatus: started } : updated;
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
