import type { KeyRing } from '../../crypto/keyring.ts';

/**
 * The sealed fields of a stored e-mail: the recipient, the subject and both bodies. An e-mail to a
 * customer greets them by first name and a payout e-mail carries a verification code, so none of it
 * rests in plaintext. Each field is bound to its row and merchant by the associated data
 * (`emails|<merchant>|<row>|<field>`): a value copied to another e-mail, merchant or field fails to open.
 */
export const sealedEmailFields = ['to', 'subject', 'text', 'html'] as const;
export type SealedEmailField = (typeof sealedEmailFields)[number];

export type EmailContent = Record<SealedEmailField, string>;

/** The stored form of the sealed fields, named like the columns of `emails`. */
export interface StoredEmailContent {
  toCiphertext: string;
  subject: string;
  text: string;
  html: string;
}

export function emailFieldAssociatedData(merchantId: string, emailId: string, field: SealedEmailField): string {
  return `emails|${merchantId}|${emailId}|${field}`;
}

/** The shape of a key-ring ciphertext (`v1.<kid>.<base64url>`): no subject or body we write looks like it. */
const sealedShape = /^v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]+$/;

export function isSealed(value: string): boolean {
  return sealedShape.test(value);
}

function storedValue(stored: StoredEmailContent, field: SealedEmailField): string {
  return field === 'to' ? stored.toCiphertext : stored[field];
}

export function sealEmailContent(keyRing: KeyRing, merchantId: string, emailId: string, content: EmailContent): StoredEmailContent {
  const seal = (field: SealedEmailField) => keyRing.encrypt(content[field], emailFieldAssociatedData(merchantId, emailId, field));
  return { toCiphertext: seal('to'), subject: seal('subject'), text: seal('text'), html: seal('html') };
}

/**
 * Opens one stored field. Rows written before bodies were sealed hold the subject and bodies in
 * plaintext: a value that is not a ciphertext is returned as it is (and `crypto reencrypt` seals it).
 * A ciphertext that does not open (another row's value, a key no longer in the ring) throws.
 */
export function openEmailField(keyRing: KeyRing, merchantId: string, emailId: string, field: SealedEmailField, stored: string): string {
  return isSealed(stored) ? keyRing.decrypt(stored, emailFieldAssociatedData(merchantId, emailId, field)) : stored;
}

export function openEmailContent(keyRing: KeyRing, merchantId: string, emailId: string, stored: StoredEmailContent): EmailContent {
  const open = (field: SealedEmailField) => openEmailField(keyRing, merchantId, emailId, field, storedValue(stored, field));
  return { to: open('to'), subject: open('subject'), text: open('text'), html: open('html') };
}

/** Shown instead of a field that does not open, where one unreadable e-mail must not hide the others. */
export const unreadableEmailField = '(unreadable)';

/** Like openEmailContent, but a field that does not open reads `(unreadable)` (inbox lists). */
export function openEmailContentOrPlaceholder(keyRing: KeyRing, merchantId: string, emailId: string, stored: StoredEmailContent): EmailContent {
  const open = (field: SealedEmailField) => {
    try {
      return openEmailField(keyRing, merchantId, emailId, field, storedValue(stored, field));
    } catch {
      return unreadableEmailField;
    }
  };
  return { to: open('to'), subject: open('subject'), text: open('text'), html: open('html') };
}

/**
 * Key-ring rotation: the stored fields re-sealed under the active key (plaintext bodies of older rows
 * sealed too); null when every field already is under it. Throws when a field does not open.
 */
export function resealEmailContent(keyRing: KeyRing, merchantId: string, emailId: string, stored: StoredEmailContent): StoredEmailContent | null {
  const current = sealedEmailFields.every((field) => {
    const value = storedValue(stored, field);
    return isSealed(value) && keyRing.keyIdOf(value) === keyRing.activeKeyId;
  });
  if (current) {
    return null;
  }
  return sealEmailContent(keyRing, merchantId, emailId, openEmailContent(keyRing, merchantId, emailId, stored));
}
