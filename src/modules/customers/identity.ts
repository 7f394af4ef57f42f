import { AppError, wrongParameter } from '../../http/errors.ts';
import { addressFields, missingKycFields, normalizePhoneNumber, validateAddress, validateDateOfBirth, type Address } from './rules.ts';
import type { CustomerCreateInput } from './schemas.ts';

/** Where a customer's sealed record lives (the associated data of its ciphertext). */
export function location(row: { merchantId: string; id: string }) {
  return { merchantId: row.merchantId, table: 'customers', rowId: row.id };
}

/** `{line1, city, …}` → `{'address.line1': …}`, the flat form the sealed record keeps. */
export function addressToFields(address: Address): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const field of addressFields) {
    const value = address[field];
    if (value !== undefined) {
      fields[`address.${field}`] = value;
    }
  }
  return fields;
}

/** The flat `address.*` fields back as an address. */
export function fieldsToAddress(fields: Record<string, string>): Address {
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

/** Runs one check; a WRONG_PARAMETER it throws is collected instead. */
function collectInto(problems: AppError[], check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
      problems.push(error);
      return;
    }
    throw error;
  }
}

/**
 * Every problem of identity fields typed into a form, in form order (the hosted KYC form shows them
 * all at once; `normalizeIdentity` answers the first): each field checked on its own by the same
 * rules, then the fields KYC needs that neither the form nor `known` (what the customer record holds)
 * gives.
 */
export function identityProblems(input: Partial<CustomerCreateInput>, known: Readonly<Record<string, string | undefined>>, now: Date, prefix = 'kyc.'): AppError[] {
  const problems: AppError[] = [];
  for (const name of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const) {
    if (input[name] !== undefined) {
      collectInto(problems, () => normalizeIdentity({ [name]: input[name] }, now, prefix));
    }
  }
  const address = input.address ?? {};
  const country = (address.country ?? known['address.country'])?.toUpperCase();
  collectInto(problems, () => validateAddress({ ...(address.country === undefined ? {} : { country: address.country }) }));
  collectInto(problems, () => validateAddress({ ...(country === undefined ? {} : { country }), ...(address.state === undefined ? {} : { state: address.state }) }));
  collectInto(problems, () => validateAddress({ ...(country === undefined ? {} : { country }), ...(address.postalCode === undefined ? {} : { postalCode: address.postalCode }) }));
  const typed: Record<string, string | undefined> = { ...known, ...addressToFields(address) };
  for (const name of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const) {
    if (input[name] !== undefined) {
      typed[name] = input[name];
    }
  }
  const named = new Set(problems.map((problem) => String(problem.extra.field ?? '').replace(prefix, '')));
  for (const field of missingKycFields(typed)) {
    if (!named.has(field)) {
      problems.push(wrongParameter(`${prefix}${field}`, 'is required to verify the identity'));
    }
  }
  return problems;
}
