import { createCipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';

const decoder = new TextDecoder();

/** Imported AES keys, per key buffer (merchant PII keys are cached by the merchants service). */
const secretKeys = new WeakMap<Uint8Array, KeyObject>();
/** The base64url protected header per key id (`{"alg":"dir","enc":"A256GCM","kid":…}`) and its ASCII bytes (the AAD). */
const protectedHeaders = new Map<string, { encoded: string; aad: Buffer }>();

function secretKeyOf(key: Uint8Array): KeyObject {
  let secret = secretKeys.get(key);
  if (!secret) {
    if (key.length !== 32) {
      throw new TypeError('A256GCM needs a 256-bit key');
    }
    secret = createSecretKey(key);
    secretKeys.set(key, secret);
  }
  return secret;
}

function protectedHeaderOf(keyId: string): { encoded: string; aad: Buffer } {
  let header = protectedHeaders.get(keyId);
  if (header === undefined) {
    // Same member order as jose's `setProtectedHeader({ alg, enc, kid })`.
    const encoded = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: keyId }), 'utf8').toString('base64url');
    header = { encoded, aad: Buffer.from(encoded, 'ascii') };
    if (protectedHeaders.size > 10_000) {
      protectedHeaders.clear();
    }
    protectedHeaders.set(keyId, header);
  }
  return header;
}

/**
 * PII is returned to merchants as JWE compact serialization (RFC 7516): `alg: dir`, `enc: A256GCM`,
 * with `kid` naming the merchant PII key. Any JOSE library decrypts it with that key.
 *
 * Built directly with node:crypto (synchronous AES-GCM) rather than jose's WebCrypto path, which
 * imported the key and crossed to the thread pool for every field: the output is the same
 * `header..iv.ciphertext.tag` form (empty encrypted key, 96-bit IV, 128-bit tag, the ASCII of the
 * encoded protected header as AAD), and `decryptJwe` (jose) reads it.
 */
export function encryptJweSync(plaintext: string, key: Uint8Array, keyId: string): string {
  const header = protectedHeaderOf(keyId);
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKeyOf(key), iv);
  cipher.setAAD(header.aad);
  // GCM is a stream mode: `final()` adds no bytes (it computes the tag), so update's output is the whole ciphertext.
  const ciphertext = cipher.update(plaintext, 'utf8');
  cipher.final();
  return `${header.encoded}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

export async function encryptJwe(plaintext: string, key: Uint8Array, keyId: string): Promise<string> {
  return encryptJweSync(plaintext, key, keyId);
}

export async function decryptJwe(jwe: string, key: Uint8Array): Promise<string> {
  // jose is loaded with the first decryption, not at start (encryption above is node:crypto's own).
  const { compactDecrypt } = await import('jose');
  const { plaintext } = await compactDecrypt(jwe, key);
  return decoder.decode(plaintext);
}
