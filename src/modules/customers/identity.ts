import { wrongParameter } from '../../http/errors.ts';
import { addressFields, normalizePhoneNumber, validateAddress, validateDateOfBirth, type Address } from './rules.ts';
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
