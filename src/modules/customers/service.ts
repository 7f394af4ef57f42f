import { and, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { createCoalescedWakeup, jobInsertStatement, notifyInsertedJobs } from '../../jobs/queue.ts';
import type { Database, Executor } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { fieldsToJwe, openRecord, sealRecord } from '../../crypto/pii.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Merchant, MerchantsService, PiiKey } from '../merchants/index.ts';
import { addressFields, isEmailAddress, normalizeEmail, payoutMethods, sameMethods, validateAddress, validatePaymentMethods, validateSignupAt, type KycData } from './rules.ts';
import type { CustomerCreateInput, CustomerOrErasedResponse, CustomerResponse, CustomerUpdateInput } from './schemas.ts';
import { createCustomerList } from './list.ts';
import type { CustomerKyc } from './kyc-port.ts';
import { addressToFields, fieldsToAddress, location, normalizeIdentity } from './identity.ts';

export { normalizeIdentity };
import { createCustomerReencryption, createEmailLookupBackfill, emailLookupCandidates, emailLookupOf } from './sealing.ts';

export type CustomerRow = typeof customers.$inferSelect;

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
  let kycWakeup: { request(): void } | null = null;

  /** The answer for a row whose PII is `jwe` (JWE per field) and `email` (plaintext). */
  function responseOf(row: CustomerRow, email: string | undefined, jwe: Record<string, string>): CustomerResponse {
    const response: CustomerResponse = {
      id: row.id,
      referenceId: row.referenceId,
      signupAt: row.signupAt.getTime(),
      merchantId: row.merchantId,
      livemode: row.livemode,
      kycStatus: row.kycStatus,
      ...(row.kycReason && (row.kycStatus === 'PENDING' || row.kycStatus === 'REJECTED') ? { kycReason: row.kycReason } : {}),
      createdAt: row.createdAt.getTime(),
      updatedAt: row.updatedAt.getTime(),
    };
    if (email !== undefined) {
      response.email = email;
    }
    if (row.supportedPaymentMethods) {
      response.supportedPaymentMethods = row.supportedPaymentMethods;
    }
    if (row.supportedPayoutMethods) {
      response.supportedPayoutMethods = row.supportedPayoutMethods as CustomerResponse['supportedPayoutMethods'];
    }
    for (const name of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const) {
      if (jwe[name] !== undefined) {
        response[name] = jwe[name];
      }
    }
    const address = fieldsToAddress(jwe);
    if (Object.keys(address).length > 0) {
      response.address = address;
    }
    return response;
  }

  /** The answer right after a write, from the plaintext just sealed (no decryption round trip). */
  function responseFromPlaintext(row: CustomerRow, fields: Record<string, string>, piiKey: PiiKey): CustomerResponse {
    const { email, ...identity } = fields;
    return responseOf(row, email, fieldsToJwe(identity, piiKey));
  }

  /** The answer for a stored row: every PII field decrypted and re-encrypted as a fresh JWE; an erased customer's tombstone. */
  async function toResponse(row: CustomerRow): Promise<CustomerOrErasedResponse> {
    if (row.erasedAt) {
      return { id: row.id, referenceId: row.referenceId, merchantId: row.merchantId, livemode: row.livemode, erasedAt: row.erasedAt.getTime(), createdAt: row.createdAt.getTime() };
    }
    const plain = openRecord(keyRing, location(row), row.pii);
    return responseFromPlaintext(row, plain, await merchants.activePiiKey(row.merchantId));
  }

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

  function scope(merchantId: string, livemode: boolean | undefined, extra: SQL): SQL {
    const conditions = [eq(customers.merchantId, merchantId), extra];
    if (livemode !== undefined) {
      conditions.push(eq(customers.livemode, livemode));
    }
    return and(...conditions) as SQL;
  }

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
      const verification = plan.verification;
      statements.push(sql`verification as (
        insert into kyc_verifications (id, merchant_id, livemode, customer_id, provider, status, reason, created_at)
        select ${verification.id}, ${merchantId}, ${livemode}::boolean, customer.id, ${verification.provider}, 'PENDING', ${verification.reason ?? null}::text, ${at}::timestamptz from customer)`);
      if (plan.job) {
        statements.push(sql`job as (${jobInsertStatement(now, plan.job.queue, plan.job.payload, plan.job.options)})`);
        // In the caller's transaction the NOTIFY rides along (delivered on its commit); a statement
        // committing on its own wakes the workers afterwards through the coalesced wake-up.
        tail = wakeAfterCommit ? sql`select id from job` : notifyInsertedJobs('job');
        kycWakeup ??= createCoalescedWakeup(database, plan.job.queue);
      }
    }
    try {
      await executor.execute(sql`with ${sql.join(statements, sql`, `)} ${tail}`);
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
    ...createCustomerReencryption({ database, keyRing }),

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

    async findById(executor: Executor, merchantId: string, livemode: boolean | undefined, customerId: string): Promise<CustomerRow | null> {
      const [row] = await executor.select().from(customers).where(scope(merchantId, livemode, eq(customers.id, customerId)));
      return row ?? null;
    },

    /** The customer's identity data in plaintext, for the KYC provider and the pre-filled form only. */
    async readKycData(executor: Executor, customerId: string): Promise<KycData> {
      const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
      if (!row) {
        throw notFound('customer', customerId);
      }
      const { email: _email, ...identity } = openRecord(keyRing, location(row), row.pii);
      return identity as KycData;
    },

    /**
     * The keyed hashes an exact e-mail search matches, as `GET /v1/customers?email=` computes them
     * (every key of the ring); none for something that is not an e-mail address.
     */
    emailLookupsFor(merchantId: string, email: string): string[] {
      const trimmed = email.trim();
      return trimmed.length <= 254 && isEmailAddress(trimmed) ? emailLookupCandidates(keyRing, merchantId, normalizeEmail('email', trimmed)) : [];
    },

    /** Names and e-mail addresses of some of a merchant's customers, decrypted for display on one dashboard list page only. */
    async displayContacts(executor: Executor, merchantId: string, customerIds: readonly string[]): Promise<Map<string, { name: string | null; email: string | null }>> {
      const contacts = new Map<string, { name: string | null; email: string | null }>();
      if (customerIds.length === 0) {
        return contacts;
      }
      const rows = await executor.select().from(customers).where(and(eq(customers.merchantId, merchantId), inArray(customers.id, [...customerIds])));
      for (const row of rows) {
        const plain = openRecord(keyRing, location(row), row.pii);
        const name = [plain.firstName, plain.middleName, plain.lastName].filter((part) => part !== undefined && part !== '').join(' ');
        contacts.set(row.id, { name: name === '' ? null : name, email: plain.email ?? null });
      }
      return contacts;
    },

    /** The customer's plaintext e-mail address and first name, for e-mails only. */
    async contactOf(executor: Executor, customerId: string): Promise<{ email: string | null; firstName: string | null }> {
      const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
      if (!row) {
        return { email: null, firstName: null };
      }
      const plain = openRecord(keyRing, location(row), row.pii);
      return { email: plain.email ?? null, firstName: plain.firstName ?? null };
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
