import type { KeyRing } from './keyring.ts';
import { encryptJweSync } from './jwe.ts';

/** Where a sealed value lives; bound into the AES-GCM associated data. */
export interface PiiLocation {
  merchantId: string;
  table: string;
  rowId: string;
}

function associatedData(location: PiiLocation, field: string): string {
  return `${location.table}|${location.merchantId}|${location.rowId}|${field}`;
}

export function sealFields(keyRing: KeyRing, location: PiiLocation, fields: Record<string, string>): Record<string, string> {
  const sealed: Record<string, string> = {};
  for (const [field, value] of Object.entries(fields)) {
    sealed[field] = keyRing.encrypt(value, associatedData(location, field));
  }
  return sealed;
}

export function openFields(keyRing: KeyRing, location: PiiLocation, sealed: Record<string, string>): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [field, value] of Object.entries(sealed)) {
    // An empty value was erased (`POST /v1/customers/:id/erase`): there is nothing to open.
    if (value !== '') {
      plain[field] = keyRing.decrypt(value, associatedData(location, field));
    }
  }
  return plain;
}

/** Re-seals every field whose ciphertext is not under the active key; null when nothing changed. */
export function resealFields(keyRing: KeyRing, location: PiiLocation, sealed: Record<string, string>): Record<string, string> | null {
  if (Object.values(sealed).every((value) => value === '' || keyRing.keyIdOf(value) === keyRing.activeKeyId)) {
    return null;
  }
  const erased = Object.fromEntries(Object.entries(sealed).filter(([, value]) => value === '')) as Record<string, string>;
  return { ...sealFields(keyRing, location, openFields(keyRing, location, sealed)), ...erased };
}

/**
 * A PII record (a customer's identity and contact fields) sealed as one AES-GCM value:
 * `{ "record": "v1.<kid>.…" }` in its jsonb column. The plaintext is the JSON object of the
 * fields; the associated data names the merchant, table, row and the column (`pii`), so the value
 * copied to another row, merchant, table or column does not decrypt — and since the fields travel
 * together, none can be moved to another field. One operation per record instead of one per field
 * (a customer has up to 12): see docs/decisions/0006-one-sealed-value-per-pii-record.md.
 *
 * Rows written in the earlier per-field format (`{ "firstName": "v1.…", … }`) still open, and
 * `resealRecord` (the key-rotation re-encryption) rewrites them as one record.
 */
export const sealedRecordKey = 'record';
const recordColumn = 'pii';

function isRecordFormat(sealed: Record<string, string>): boolean {
  const keys = Object.keys(sealed);
  return keys.length === 1 && keys[0] === sealedRecordKey;
}

/** `record|table|merchant|row|pii`: its own domain, so no per-field value (`table|…|field`) shares it. */
function recordAssociatedData(location: PiiLocation): string {
  return `record|${associatedData(location, recordColumn)}`;
}

export function sealRecord(keyRing: KeyRing, location: PiiLocation, fields: Record<string, string>): Record<string, string> {
  return { [sealedRecordKey]: keyRing.encrypt(JSON.stringify(fields), recordAssociatedData(location)) };
}

export function openRecord(keyRing: KeyRing, location: PiiLocation, sealed: Record<string, string>): Record<string, string> {
  if (!isRecordFormat(sealed)) {
    return openFields(keyRing, location, sealed);
  }
  const parsed: unknown = JSON.parse(keyRing.decrypt(sealed[sealedRecordKey] as string, recordAssociatedData(location)));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((value) => typeof value !== 'string')) {
    throw new TypeError('a sealed PII record must hold an object of strings');
  }
  return parsed as Record<string, string>;
}

/** Re-seals a record that is not one value under the active key (or is in the per-field format); null when nothing changed. */
export function resealRecord(keyRing: KeyRing, location: PiiLocation, sealed: Record<string, string>): Record<string, string> | null {
  if (isRecordFormat(sealed) && keyRing.keyIdOf(sealed[sealedRecordKey] as string) === keyRing.activeKeyId) {
    return null;
  }
  return sealRecord(keyRing, location, openRecord(keyRing, location, sealed));
}

/** Encrypts each plaintext field as JWE under the merchant's PII key (the API's answer format). */
export function fieldsToJwe(fields: Record<string, string>, merchantKey: { id: string; key: Uint8Array }): Record<string, string> {
  const jwe: Record<string, string> = {};
  for (const [field, value] of Object.entries(fields)) {
    jwe[field] = encryptJweSync(value, merchantKey.key, merchantKey.id);
  }
  return jwe;
}
