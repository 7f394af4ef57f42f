import { randomBytes } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';

/** The one registry of id prefixes (docs/API.md §2). Ids are generated only through `newId`. */
export const idPrefixes = {
  merchant: 'mer_',
  customer: 'cus_',
  payoutPage: 'payout_page_',
  payoutAttempt: 'payout_attempt_',
  paymentPage: 'page_',
  payment: 'pay_',
  subscription: 'sub_',
  invoice: 'inv_',
  entitlement: 'ent_',
  event: 'evt_',
  webhookEndpoint: 'we_',
  webhookDelivery: 'whd_',
  apiKey: 'key_',
  dashboardUser: 'usr_',
  dashboardSession: 'dss_',
  recoveryCode: 'rcc_',
  signInChallenge: 'sic_',
  dashboardInvite: 'dsi_',
  job: 'job_',
  kycVerification: 'kyc_',
  kycReview: 'kyr_',
  piiKey: 'pii_',
  email: 'eml_',
  ledgerTransaction: 'ltx_',
  ledgerEntry: 'len_',
  ledgerAccount: 'acc_',
  fraudImport: 'fim_',
  cardToken: 'ctok_',
  dispute: 'dp_',
  refund: 're_',
  auditEvent: 'aud_',
} as const;

export type IdKind = keyof typeof idPrefixes;

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function encodeBase32(bytes: Uint8Array): string {
  let output = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) {
    output += alphabet[(buffer << (5 - bits)) & 31];
  }
  return output;
}

/**
 * `<prefix><10 chars of 48-bit millisecond time><26 chars of 128 random bits>`: opaque, URL-safe,
 * sortable by creation time (so primary-key indexes stay append-mostly).
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const time = Buffer.alloc(6);
  time.writeUIntBE(now, 0, 6);
  return idPrefixes[kind] + encodeBase32(time) + encodeBase32(pooledRandomBytes(16));
}

const idPattern = /^[0-9a-z]{36}$/;

export function isId(kind: IdKind, value: string): boolean {
  const prefix = idPrefixes[kind];
  return value.startsWith(prefix) && idPattern.test(value.slice(prefix.length));
}

/** A random URL-safe secret of `bytes` bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
