import { CompactEncrypt, compactDecrypt } from 'jose';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * PII is returned to merchants as JWE compact serialization (RFC 7516): `alg: dir`, `enc: A256GCM`,
 * with `kid` naming the merchant PII key. Any JOSE library decrypts it with that key.
 */
export async function encryptJwe(plaintext: string, key: Uint8Array, keyId: string): Promise<string> {
  return new CompactEncrypt(encoder.encode(plaintext))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: keyId })
    .encrypt(key);
}

export async function decryptJwe(jwe: string, key: Uint8Array): Promise<string> {
  const { plaintext } = await compactDecrypt(jwe, key);
  return decoder.decode(plaintext);
}
