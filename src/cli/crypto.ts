import fs from 'node:fs';
import path from 'node:path';
import { booleanFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { CommandError, UsageError, exitCodes, writeLine, type CliIo } from './io.ts';
import { withPlatform, type CliPlatform } from './platform.ts';
import type { Platform } from '../platform.ts';
import { trackProgress } from './progress.ts';

/**
 * Re-seals every sealed value (customer PII, e-mails, payout and payment pages, payments, fraud
 * reports, webhook secrets, stored idempotent responses, merchant PII keys) under the key ring's
 * active key, with a progress bar for each table, then says whether anything is left under other keys.
 */
async function reencrypt(io: CliIo, platform: Platform): Promise<void> {
  const { reencryptAll, keyRingStatus } = await import('../platform.ts');
  const results = await reencryptAll(platform, (label) => trackProgress(io.stderr, label));
  writeLine(io.stdout, `re-encrypted under ${platform.keyRing.activeKeyId}: ${results.map((result) => `${result.reencrypted} ${result.label}`).join(', ')}`);
  const status = await keyRingStatus(platform);
  writeLine(io.stdout, status.stale === 0 ? `every sealed value is under ${status.activeKeyId}` : `${status.stale} sealed values are still not under ${status.activeKeyId}: see crypto status`);
}

const status: Command = {
  name: 'crypto status',
  summary: 'count sealed values per key: an old key may leave the ring once nothing is under it',
  positionals: [],
  flags: { json: jsonFlag },
  details: [
    'Reads every sealed column (read-only). Each line: table, column, key id (or "plaintext" for a',
    'value older versions left unsealed) and how many values. When the last line says every value is',
    'under the active key, the other keys can be removed from ENCRYPTION_KEYS (or the key file), but',
    'keep them until every process runs with the new first key.',
  ],
  examples: ['paysail crypto status', 'paysail crypto status --json | jq .stale'],
  async run({ io, deps, args }) {
    const { keyRingStatus } = await import('../platform.ts');
    const result = await withPlatform(io, deps, (platform) => keyRingStatus(platform));
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(result, null, 2));
      return exitCodes.ok;
    }
    for (const entry of result.counts) {
      const marker = entry.keyId === result.activeKeyId ? ' (active)' : '';
      writeLine(io.stdout, `${entry.table}\t${entry.column}\t${entry.keyId}${marker}\t${entry.count}`);
    }
    if (result.stale === 0) {
      writeLine(io.stdout, `every sealed value is under the active key ${result.activeKeyId}: other keys can be removed`);
    } else {
      const byKey = Object.entries(result.staleByKey)
        .map(([keyId, count]) => `${count} under ${keyId}`)
        .join(', ');
      writeLine(io.stdout, `${result.stale} sealed values are not under the active key ${result.activeKeyId} (${byKey}): run crypto reencrypt`);
    }
    return exitCodes.ok;
  },
};

const generateKey: Command = {
  name: 'crypto generate-key',
  summary: 'print a new ENCRYPTION_KEYS entry (kid:base64 of 32 random bytes)',
  positionals: [{ name: 'KID', optional: true }],
  flags: {},
  details: ['Put it first in ENCRYPTION_KEYS (comma-separated, the first encrypts), restart, then run `crypto reencrypt`.'],
  examples: ['paysail crypto generate-key', 'paysail crypto generate-key k2026'],
  async run({ io, args }) {
    const [kid] = args.positionals;
    const { generateKeySpec } = await import('../crypto/keyring.ts');
    const id = kid ?? `k${Date.now().toString(36)}`;
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) {
      throw new UsageError('KID must be 1-32 characters of A-Z, a-z, 0-9, _ or -', 'crypto generate-key');
    }
    writeLine(io.stdout, generateKeySpec(id));
    return exitCodes.ok;
  },
};

const rotateKey: Command = {
  name: 'crypto rotate-key',
  summary: 'add a new active key to the key file in DATA_DIR and re-encrypt every sealed value under it',
  positionals: [],
  flags: {},
  details: [
    'For the local key file (ENCRYPTION_KEYS unset). Stop the server first: PGlite refuses a second',
    'process (the key file is then left unchanged), and a running server would not know the new key.',
    'Older keys stay in the file, so everything sealed under them stays readable. With ENCRYPTION_KEYS,',
    'add a key with `crypto generate-key`, restart, then run `crypto reencrypt`.',
  ],
  examples: ['paysail crypto rotate-key'],
  async run({ io, deps }) {
    const [{ loadConfig }, { loadKeyRing, rotateKeyFile }] = await Promise.all([import('../config/index.ts'), import('../crypto/keyring.ts')]);
    const config = loadConfig(io.env, []);
    if (config.encryptionKeys) {
      throw new CommandError('ENCRYPTION_KEYS is set: put a new key first in it (crypto generate-key), restart, then run crypto reencrypt');
    }
    loadKeyRing(config);
    const keyFile = path.join(config.dataDir, 'encryption-keys');
    const previous = fs.readFileSync(keyFile, 'utf8');
    const id = rotateKeyFile(config.dataDir);
    let opened: CliPlatform;
    try {
      opened = await deps.openPlatform(io);
    } catch (error) {
      // Nothing was sealed under the new key yet (another process holds PGlite, or the database
      // is unreachable): put the old key file back so this run leaves no trace.
      fs.writeFileSync(keyFile, previous, { mode: 0o600 });
      throw error;
    }
    try {
      await reencrypt(io, opened.platform);
    } finally {
      await opened.close();
    }
    writeLine(io.stdout, `new active key ${id} in ${keyFile}`);
    return exitCodes.ok;
  },
};

const reencryptCommand: Command = {
  name: 'crypto reencrypt',
  audit: { action: 'cli_cryptoReencrypt' },
  summary: 're-encrypt every sealed value under the active key (after changing ENCRYPTION_KEYS)',
  positionals: [],
  flags: {},
  details: ['Idempotent and resumable: values already under the active key are skipped. Then run `crypto status`.'],
  examples: ['ENCRYPTION_KEYS=new:…,old:… paysail crypto reencrypt'],
  async run({ io, deps }) {
    await withPlatform(io, deps, (platform) => reencrypt(io, platform));
    return exitCodes.ok;
  },
};

export const cryptoCommands: readonly Command[] = [generateKey, rotateKey, reencryptCommand, status];
