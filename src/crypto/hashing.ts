import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string | Buffer): string {
  // One-shot (no Hash object): API-key authentication hashes the secret on every request.
  return hash('sha256', value, 'hex');
}

export function hmacSha256(key: Buffer | string, value: string): Buffer {
  return createHmac('sha256', key).update(value).digest();
}

/** Constant-time comparison of two strings of possibly different length (compares their digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
