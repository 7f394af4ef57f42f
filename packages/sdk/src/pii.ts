import { createDecipheriv } from 'node:crypto';

/** Thrown by `pii.decrypt`: not a JWE we read, wrong key, or tampered ciphertext. */
export class PiiDecryptionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PiiDecryptionError';
  }
}

/**
 * A merchant PII key: base64url (as the dashboard and `GET /admin/v1/merchants/:id/pii_keys` show
 * it) or raw bytes; or the whole list of keys (`{id, key}`), from which the JWE's `kid` picks one —
 * values encrypted before a rotation stay readable.
 */
export type PiiKey = string | Uint8Array | ReadonlyArray<{ id: string; key: string | Uint8Array }>;

const base64url = /^[A-Za-z0-9_-]*$/;

function decodePart(part: string, name: string): Buffer {
  if (!base64url.test(part)) {
    throw new PiiDecryptionError(`JWE ${name} is not base64url`);
  }
  return Buffer.from(part, 'base64url');
}

function keyBytes(key: string | Uint8Array): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64url') : Buffer.from(key);
  if (bytes.length !== 32) {
    throw new PiiDecryptionError('A PII key is 32 bytes (A256GCM)');
  }
  return bytes;
}

/**
 * Decrypts one PII field of an API answer: a JWE compact serialization (RFC 7516) with `alg: dir`,
 * `enc: A256GCM` under the merchant PII key. Any other algorithm is refused rather than guessed.
 */
export async function decrypt(jwe: string, key: PiiKey): Promise<string> {
  const parts = jwe.split('.');
  if (parts.length !== 5) {
    throw new PiiDecryptionError('Not a JWE compact serialization (five dot-separated parts)');
  }
  const [protectedHeader = '', encryptedKey = '', ivPart = '', ciphertextPart = '', tagPart = ''] = parts;
  let header: { alg?: unknown; enc?: unknown; kid?: unknown; zip?: unknown; crit?: unknown };
  try {
    header = JSON.parse(decodePart(protectedHeader, 'header').toString('utf8')) as typeof header;
  } catch (error) {
    throw error instanceof PiiDecryptionError ? error : new PiiDecryptionError('JWE header is not JSON', { cause: error });
  }
  if (header.alg !== 'dir' || header.enc !== 'A256GCM') {
    throw new PiiDecryptionError(`Unsupported JWE: alg ${String(header.alg)}, enc ${String(header.enc)} (expected dir, A256GCM)`);
  }
  if (header.zip !== undefined || header.crit !== undefined) {
    throw new PiiDecryptionError('Unsupported JWE header parameters (zip, crit)');
  }
  if (encryptedKey !== '') {
    throw new PiiDecryptionError('A dir JWE has an empty encrypted key');
  }
  const iv = decodePart(ivPart, 'IV');
  const tag = decodePart(tagPart, 'tag');
  if (iv.length !== 12 || tag.length !== 16) {
    throw new PiiDecryptionError('A256GCM needs a 96-bit IV and a 128-bit tag');
  }
  let secret: string | Uint8Array;
  if (typeof key === 'string' || key instanceof Uint8Array) {
    secret = key;
  } else {
    const match = key.find((candidate) => candidate.id === header.kid);
    if (!match) {
      throw new PiiDecryptionError(`No PII key with id ${String(header.kid)}`);
    }
    secret = match.key;
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyBytes(secret), iv);
    // The AAD is the ASCII of the encoded protected header (RFC 7516 §5.2 step 14).
    decipher.setAAD(Buffer.from(protectedHeader, 'ascii'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(decodePart(ciphertextPart, 'ciphertext')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw error instanceof PiiDecryptionError ? error : new PiiDecryptionError('JWE does not decrypt with this key (wrong key or tampered value)', { cause: error });
  }
}

/** `pii.decrypt(jwe, key)`. */
export const pii = { decrypt } as const;
