import canonicalize from 'canonicalize';
import { constantTimeEqual, hmacSha256, sha256Hex } from '../../crypto/hashing.ts';
import { wrongParameter } from '../../http/errors.ts';

/**
 * The entitlements list cursor: `<base64url(JSON payload)>.<base64url(HMAC-SHA256)>`.
 *
 * Opaque to clients and tamper-evident: the HMAC (a key derived from the key ring for this purpose
 * only) covers the position (createdAt, id of the last row returned), the merchant, and a digest of
 * the filters and sort. A cursor therefore only continues the query it came from: edited, forged,
 * another merchant's, or used with different filters or sort → 400 WRONG_PARAMETER. The page size
 * may change between pages. Rotating the key ring's active key invalidates outstanding cursors.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/** Everything a cursor is bound to besides its position. */
export interface CursorScope {
  merchantId: string;
  subscriptionId: string | undefined;
  customerId: string | undefined;
  isActive: boolean | undefined;
  livemode: boolean | undefined;
  sort: 'asc' | 'desc';
}

interface Payload {
  v: 1;
  /** merchant id */
  m: string;
  /** digest of filters and sort */
  q: string;
  /** createdAt, epoch ms */
  t: number;
  /** id */
  i: string;
}

const domain = 'paysail.entitlements-cursor.v1';

function scopeDigest(scope: CursorScope): string {
  const filters = {
    subscriptionId: scope.subscriptionId ?? null,
    customerId: scope.customerId ?? null,
    isActive: scope.isActive ?? null,
    livemode: scope.livemode ?? null,
    sort: scope.sort,
  };
  return sha256Hex(canonicalize(filters) ?? '').slice(0, 32);
}

function sign(key: Buffer, body: string): Buffer {
  return hmacSha256(key, `${domain}.${body}`);
}

export function encodeCursor(key: Buffer, scope: CursorScope, position: CursorPosition): string {
  const payload: Payload = { v: 1, m: scope.merchantId, q: scopeDigest(scope), t: position.createdAt.getTime(), i: position.id };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(key, body).toString('base64url')}`;
}

function isPayload(value: unknown): value is Payload {
  const candidate = value as Partial<Payload> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.v === 1 &&
    typeof candidate.m === 'string' &&
    typeof candidate.q === 'string' &&
    typeof candidate.i === 'string' &&
    typeof candidate.t === 'number' &&
    Number.isSafeInteger(candidate.t)
  );
}

const invalid = () => wrongParameter('cursorToken', 'is not a valid cursor: pass the nextPageToken of the previous page unchanged');

/** The position a cursor continues from, or WRONG_PARAMETER when it is not one of ours for this query. */
export function decodeCursor(key: Buffer, scope: CursorScope, token: string): CursorPosition {
  const match = /^([A-Za-z0-9_-]{1,800})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) {
    throw invalid();
  }
  const [, body, signature] = match;
  // Compared as text: base64url's last character carries spare bits, so decoding first would accept
  // more than one spelling of the same signature.
  if (!constantTimeEqual(signature, sign(key, body).toString('base64url'))) {
    throw invalid();
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  // A signed payload that is not ours to read (another merchant's) gets the same answer as a forged one.
  if (!isPayload(payload) || payload.m !== scope.merchantId) {
    throw invalid();
  }
  if (payload.q !== scopeDigest(scope)) {
    throw wrongParameter('cursorToken', 'was issued for different filters or sort: repeat the query of the previous page with its nextPageToken');
  }
  return { createdAt: new Date(payload.t), id: payload.i };
}
