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
    plain[field] = keyRing.decrypt(value, associatedData(location, field));
  }
  return plain;
}

/** Re-seals every field whose ciphertext is not under the active key; null when nothing changed. */
export function resealFields(keyRing: KeyRing, location: PiiLocation, sealed: Record<string, string>): Record<string, string> | null {
  if (Object.values(sealed).every((value) => keyRing.keyIdOf(value) === keyRing.activeKeyId)) {
    return null;
  }
  return sealFields(keyRing, location, openFields(keyRing, location, sealed));
}

/** Encrypts each plaintext field as JWE under the merchant's PII key (the API's answer format). */
export function fieldsToJwe(fields: Record<string, string>, merchantKey: { id: string; key: Uint8Array }): Record<string, string> {
  const jwe: Record<string, string> = {};
  for (const [field, value] of Object.entries(fields)) {
    jwe[field] = encryptJweSync(value, merchantKey.key, merchantKey.id);
  }
  return jwe;
}
