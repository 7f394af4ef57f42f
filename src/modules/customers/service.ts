import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { fieldsAsJwe, openFields, resealFields, sealFields } from '../../crypto/pii.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../jobs/worker.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { KycService } from '../kyc/service.ts';
import type { Merchant, MerchantsService } from '../merchants/service.ts';
import {
  addressFields,
  normalizeEmail,
  normalizePhoneNumber,
  payoutMethods,
  sameMethods,
  validateAddress,
  validateDateOfBirth,
  validatePaymentMethods,
  validateSignupAt,
  type Address,
  type KycData,
} from './rules.ts';
import type { CustomerCreateInput, CustomerResponse, CustomerUpdateInput } from './schemas.ts';

export type CustomerRow = typeof customers.$inferSelect;

const immutableOnUpdate = ['referenceId', 'signupAt', 'firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber', 'supportedPayoutMethods'] as const;

function location(row: { merchantId: string; id: string }) {
  return { merchantId: row.merchantId, table: 'customers', rowId: row.id };
}

function addressToFields(address: Address): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const field of addressFields) {
    const value = address[field];
    if (value !== undefined) {
      fields[`address.${field}`] = value;
    }
  }
  return fields;
}

function fieldsToAddress(fields: Record<string, string>): Address {
  const address: Address = {};
  for (const field of addressFields) {
    const value = fields[`address.${field}`];
    if (value !== undefined) {
      address[field] = value;
    }
  }
  return address;
}

/** Validates and normalises the identity fields of a create (or of the hosted KYC form). */
export function normalizeIdentity(input: Partial<CustomerCreateInput>, now: Date, prefix = ''): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of ['firstName', 'middleName', 'lastName'] as const) {
    const value = input[name];
    if (value !== undefined) {
      if (value.trim() === '') {
        throw wrongParameter(`${prefix}${name}`, 'must not be blank');
      }
      fields[name] = value.trim();
    }
  }
  if (input.dateOfBirth !== undefined) {
    fields.dateOfBirth = validateDateOfBirth(`${prefix}dateOfBirth`, input.dateOfBirth, now);
  }
  if (input.phoneNumber !== undefined) {
    fields.phoneNumber = normalizePhoneNumber(`${prefix}phoneNumber`, input.phoneNumber);
  }
  if (input.address !== undefined) {
    Object.assign(fields, addressToFields(validateAddress(input.address)));
  }
  return fields;
}

export function createCustomersService(deps: { database: Database; clock: Clock; keyRing: KeyRing; merchants: MerchantsService; kyc: () => KycService }) {
  const { database, clock, keyRing, merchants } = deps;

  async function toResponse(row: CustomerRow): Promise<CustomerResponse> {
    const { email, ...sealed } = row.pii;
    const plainEmail = email ? openFields(keyRing, location(row), { email }).email : undefined;
    const jwe = await fieldsAsJwe(keyRing, location(row), sealed, await merchants.activePiiKey(row.merchantId));
    const address = fieldsToAddress(jwe);
    const response: CustomerResponse = {
      id: row.id,
      referenceId: row.referenceId,
      signupAt: row.signupAt.getTime(),
      merchantId: row.merchantId,
      livemode: row.livemode,
      kycStatus: row.kycStatus,
      createdAt: row.createdAt.getTime(),
      updatedAt: row.updatedAt.getTime(),
    };
    if (plainEmail !== undefined) {
      response.email = plainEmail;
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
    if (Object.keys(address).length > 0) {
      response.address = address;
    }
    return response;
  }

  function scope(merchantId: string, livemode: boolean | undefined, extra: SQL): SQL {
    const conditions = [eq(customers.merchantId, merchantId), extra];
    if (livemode !== undefined) {
      conditions.push(eq(customers.livemode, livemode));
    }
    return and(...conditions) as SQL;
  }

  async function insertCustomer(tx: Executor, merchantId: string, livemode: boolean, input: { referenceId: string; signupAt: Date; fields: Record<string, string>; supportedPaymentMethods?: string[] }, now: Date): Promise<CustomerRow> {
    const id = newId('customer', now.getTime());
    let row: CustomerRow | undefined;
    try {
      [row] = await tx
        .insert(customers)
        .values({
          id,
          merchantId,
          livemode,
          referenceId: input.referenceId,
          signupAt: input.signupAt,
          pii: sealFields(keyRing, { merchantId, table: 'customers', rowId: id }, input.fields),
          supportedPaymentMethods: input.supportedPaymentMethods ?? null,
          kycStatus: 'NOT_STARTED',
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error, 'customers_reference_unique')) {
        throw new AppError('DUPLICATE_REFERENCE_ID', `A customer with referenceId '${input.referenceId.slice(0, 255)}' already exists in this mode`);
      }
      throw error;
    }
    if (!row) {
      throw new Error('customer insert returned nothing');
    }
    const started = await deps.kyc().startIfComplete(tx, row, input.fields as KycData, now);
    return started ? { ...row, kycStatus: started } : row;
  }

  async function lockCustomer(tx: Executor, merchantId: string, livemode: boolean | undefined, customerId: string): Promise<CustomerRow> {
    const [row] = await tx.select().from(customers).where(scope(merchantId, livemode, eq(customers.id, customerId))).for('update');
    if (!row) {
      throw notFound('customer', customerId);
    }
    return row;
  }

  return {
    toResponse,

    async createCustomer(merchant: Merchant, livemode: boolean, input: CustomerCreateInput): Promise<CustomerResponse> {
      const now = clock.now();
      const signupAt = validateSignupAt('signupAt', input.signupAt, now);
      const fields = normalizeIdentity(input, now);
      if (input.email !== undefined) {
        fields.email = normalizeEmail('email', input.email);
      }
      const supportedPaymentMethods = input.supportedPaymentMethods ? validatePaymentMethods('supportedPaymentMethods', input.supportedPaymentMethods) : undefined;
      const row = await database.transaction((tx) =>
        insertCustomer(tx, merchant.id, livemode, { referenceId: input.referenceId, signupAt, fields, ...(supportedPaymentMethods ? { supportedPaymentMethods } : {}) }, now),
      );
      return toResponse(row);
    },

    async getCustomer(merchant: Merchant, livemode: boolean | undefined, customerId: string): Promise<CustomerResponse> {
      const [row] = await database.db.select().from(customers).where(scope(merchant.id, livemode, eq(customers.id, customerId)));
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
      const row = await database.transaction(async (tx) => {
        // Row lock: the address merge and the immutability check read and write the same row.
        const current = await lockCustomer(tx, merchant.id, livemode, customerId);
        const fields = openFields(keyRing, location(current), current.pii);
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
          .set({ pii: sealFields(keyRing, location(current), fields), supportedPaymentMethods, updatedAt: now })
          .where(eq(customers.id, current.id))
          .returning();
        if (!updated) {
          throw notFound('customer', customerId);
        }
        const started = await deps.kyc().startIfComplete(tx, updated, fields as KycData, now);
        return started ? { ...updated, kycStatus: started } : updated;
      });
      return toResponse(row);
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
      const [row] = await database.db.update(customers).set({ supportedPayoutMethods: methods, updatedAt: clock.now() }).where(eq(customers.id, customerId)).returning();
      if (!row) {
        throw notFound('customer', customerId);
      }
      return toResponse(row);
    },

    /** Finds the customer with this referenceId, or creates it (payout and payment pages). */
    async findOrCreateByReference(tx: Executor, merchantId: string, livemode: boolean, input: { referenceId: string; email: string }, now: Date): Promise<CustomerRow> {
      const [existing] = await tx.select().from(customers).where(and(eq(customers.merchantId, merchantId), eq(customers.livemode, livemode), eq(customers.referenceId, input.referenceId)));
      if (existing) {
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
      const { email: _email, ...identity } = openFields(keyRing, location(row), row.pii);
      return identity as KycData;
    },

    /** The customer's plaintext e-mail address and first name, for e-mails only. */
    async contactOf(executor: Executor, customerId: string): Promise<{ email: string | null; firstName: string | null }> {
      const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
      if (!row) {
        return { email: null, firstName: null };
      }
      const subset: Record<string, string> = {};
      for (const field of ['email', 'firstName'] as const) {
        const value = row.pii[field];
        if (value !== undefined) {
          subset[field] = value;
        }
      }
      const plain = openFields(keyRing, location(row), subset);
      return { email: plain.email ?? null, firstName: plain.firstName ?? null };
    },

    /**
     * Completes a customer's identity data from the hosted KYC form (only fields not yet known are
     * taken) and starts verification when it is complete. Runs in the caller's transaction.
     */
    async completeIdentity(tx: Executor, merchantId: string, customerId: string, input: Partial<CustomerCreateInput>, now: Date): Promise<CustomerRow> {
      const current = await lockCustomer(tx, merchantId, undefined, customerId);
      const fields = openFields(keyRing, location(current), current.pii);
      const supplied = normalizeIdentity(input, now, 'kyc.');
      for (const [field, value] of Object.entries(supplied)) {
        if (fields[field] === undefined) {
          fields[field] = value;
        }
      }
      const merged = validateAddress(fieldsToAddress(fields));
      Object.assign(fields, addressToFields(merged));
      const [updated] = await tx.update(customers).set({ pii: sealFields(keyRing, location(current), fields), updatedAt: now }).where(eq(customers.id, current.id)).returning();
      if (!updated) {
        throw notFound('customer', customerId);
      }
      const started = await deps.kyc().startIfComplete(tx, updated, fields as KycData, now);
      return started ? { ...updated, kycStatus: started } : updated;
    },

    /** Key-ring rotation: re-seals every customer's PII under the active key. */
    async reencryptAll(): Promise<number> {
      const rows = await database.db.select({ id: customers.id, merchantId: customers.merchantId, pii: customers.pii }).from(customers);
      let changed = 0;
      for (const row of rows) {
        const resealed = resealFields(keyRing, location(row), row.pii);
        if (resealed) {
          // Conditional on the ciphertext read: a concurrent update wins and is re-sealed next run.
          const updated = await database.db
            .update(customers)
            .set({ pii: resealed })
            .where(and(eq(customers.id, row.id), sql`${customers.pii} = ${JSON.stringify(row.pii)}::jsonb`))
            .returning({ id: customers.id });
          changed += updated.length;
        }
      }
      return changed;
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
