import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.ts';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The platform key ring: AES-256-GCM keys with ids. The first key encrypts; every key decrypts, so
 * rotation is "add a new first key, re-encrypt in the background, later drop the old one".
 *
 * Ciphertext: `v1.<kid>.<base64url(iv ‖ ciphertext ‖ tag)>`. The associated data binds a value to
 * where it lives (merchant, row, field): a ciphertext copied to another row or field fails to decrypt.
 */
export interface KeyRing {
  readonly activeKeyId: string;
  readonly keyIds: readonly string[];
  encrypt(plaintext: string, associatedData: string): string;
  decrypt(ciphertext: string, associatedData: string): string;
  keyIdOf(ciphertext: string): string;
  /** A 32-byte key for one purpose (CSRF tokens, cursors, …), derived with HKDF from the active key. */
  deriveKey(purpose: string): Buffer;
  /**
   * A keyed hash (blind index) of `value` for exact lookups of a sealed value, under the active key:
   * `h1.<kid>.<base64url HMAC-SHA256>` with a key derived for `purpose`. Without the key ring it
   * reveals nothing, not even whether two merchants hold the same value (callers put the merchant in
   * `value`). A rotation re-computes it under the new key (with the re-encryption of the row).
   */
  lookupHash(purpose: string, value: string): string;
  /** `lookupHash` under every key of the ring, active first: what a lookup matches while a rotation runs. */
  lookupHashes(purpose: string, value: string): string[];
}

export class KeyRingError extends Error {}

/** The version prefix of `lookupHash` values (`h1.<kid>.…`), distinct from ciphertexts (`v1.<kid>.…`). */
export const lookupHashPrefix = 'h1';

export function parseKeySpec(spec: string): Array<{ id: string; key: Buffer }> {
  const keys = spec
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const separator = part.indexOf(':');
      if (separator <= 0) {
        throw new KeyRingError('each key must be written as kid:base64key');
      }
      const id = part.slice(0, separator);
      const key = Buffer.from(part.slice(separator + 1), 'base64');
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) {
        throw new KeyRingError(`key id "${id}" must be 1-32 characters of A-Z, a-z, 0-9, _ or -`);
      }
      if (key.length !== 32) {
        throw new KeyRingError(`key "${id}" must decode to 32 bytes`);
      }
      return { id, key };
    });
  if (keys.length === 0) {
    throw new KeyRingError('at least one key is required');
  }
  return keys;
}

export function generateKeySpec(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

export function createKeyRing(keys: Array<{ id: string; key: Buffer }>): KeyRing {
  // Imported once: createCipheriv with a raw Buffer imports the key again on every call.
  const secretsById = new Map<string, KeyObject>(keys.map((entry) => [entry.id, createSecretKey(entry.key)]));
  const [active] = keys;
  if (!active) {
    throw new KeyRingError('at least one key is required');
  }
  const activeSecret = secretsById.get(active.id) as KeyObject;
  return {
    activeKeyId: active.id,
    keyIds: keys.map((entry) => entry.id),
    encrypt(plaintext, associatedData) {
      const iv = pooledRandomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', activeSecret, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      // GCM is a stream mode: `final()` adds no bytes, so update's output is the whole ciphertext.
      const body = cipher.update(plaintext, 'utf8');
      cipher.final();
      const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]);
      return `v1.${active.id}.${sealed.toString('base64url')}`;
    },
    decrypt(ciphertext, associatedData) {
      const [version, keyId, payload] = ciphertext.split('.');
      if (version !== 'v1' || keyId === undefined || payload === undefined) {
        throw new KeyRingError('unrecognised ciphertext');
      }
      const key = secretsById.get(keyId);
      if (!key) {
        throw new KeyRingError(`unknown key id ${keyId}`);
      }
      const sealed = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      const plaintext = decipher.update(sealed.subarray(12, sealed.length - 16));
      // Verifies the tag (throws on a wrong key, a tampered value or other associated data); adds no bytes in GCM.
      decipher.final();
      return plaintext.toString('utf8');
    },
    keyIdOf(ciphertext) {
      return ciphertext.split('.')[1] ?? '';
    },
    deriveKey(purpose) {
      return Buffer.from(hkdfSync('sha256', active.key, Buffer.alloc(0), `paysail:${purpose}`, 32));
    },
    lookupHash(purpose, value) {
      return lookupHashUnder(active, purpose, value);
    },
    lookupHashes(purpose, value) {
      return keys.map((entry) => lookupHashUnder(entry, purpose, value));
    },
  };
}

/** Derived HMAC keys per key id and purpose (HKDF once, not per hash). */
const lookupKeys = new WeakMap<Buffer, Map<string, KeyObject>>();

function lookupHashUnder(entry: { id: string; key: Buffer }, purpose: string, value: string): string {
  let byPurpose = lookupKeys.get(entry.key);
  if (!byPurpose) {
    byPurpose = new Map();
    lookupKeys.set(entry.key, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    key = createSecretKey(Buffer.from(hkdfSync('sha256', entry.key, Buffer.alloc(0), `paysail:lookup:${purpose}`, 32)));
    byPurpose.set(purpose, key);
  }
  return `${lookupHashPrefix}.${entry.id}.${createHmac('sha256', key).update(value, 'utf8').digest('base64url')}`;
}

const keyFileName = 'encryption-keys';

/**
 * Loads the key ring from ENCRYPTION_KEYS, or from `<dataDir>/encryption-keys` (created with mode
 * 0600 on first start). The file lives beside the embedded database but never inside it.
 */
export function loadKeyRing(options: { encryptionKeys: string | undefined; dataDir: string }): KeyRing {
  if (options.encryptionKeys) {
    return createKeyRing(parseKeySpec(options.encryptionKeys));
  }
  const file = path.join(options.dataDir, keyFileName);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(file, `${generateKeySpec(`k${Date.now().toString(36)}`)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return createKeyRing(parseKeySpec(fs.readFileSync(file, 'utf8')));
}

/** Adds a new active key to the key file and returns its id (the `crypto rotate-key` command). */
export function rotateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, keyFileName);
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  const id = `k${Date.now().toString(36)}`;
  const next = [generateKeySpec(id), existing].filter((part) => part !== '').join(',');
  fs.writeFileSync(file, `${next}\n`, { mode: 0o600 });
  return id;
}
