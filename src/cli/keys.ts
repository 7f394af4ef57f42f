import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';

/**
 * API keys, through the same merchants service as the admin API and the dashboard. A key belongs to
 * a merchant and works in both of its modes (the request's `livemode` picks one), so keys have no
 * mode of their own. Commands name the merchant first, like the admin API's
 * `/admin/v1/merchants/:id/api_keys/:keyId`: a mistyped key id cannot touch another merchant's key.
 */
const create: Command = {
  name: 'keys create',
  audit: { action: 'adminApiKeys_create', target: 'MERCHANT_ID' },
  summary: 'create an API key for a merchant; prints the key once',
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: { name: { type: 'string', valueName: 'NAME', description: 'a label shown in the dashboard (default "CLI key")' }, json: jsonFlag },
  details: ['Keys work in sandbox and, once the merchant has live mode, in live mode (the request chooses).', 'Only a hash is stored: keep the printed key.'],
  examples: ['paysail keys create mer_… --name "CI"', 'paysail keys create mer_… --json | jq -r .apiKey'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const name = (stringFlag(args, 'name') ?? 'CLI key').trim();
    if (name === '' || name.length > 100) {
      throw new UsageError('--name must be 1 to 100 characters', 'keys create');
    }
    const created = await withPlatform(io, deps, (platform) => platform.services.merchants.createApiKey(merchantId, name));
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify({ id: created.id, name: created.name, apiKey: created.apiKey, createdAt: created.createdAt.getTime() }, null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `API key ${created.id} (${created.name}) created for ${merchantId}:`);
    writeLine(io.stdout, `  ${created.apiKey}`);
    writeLine(io.stdout, 'Shown once: only a hash is stored.');
    return exitCodes.ok;
  },
};

const list: Command = {
  name: 'keys list',
  summary: "list a merchant's API keys (id, name, last 4, created, last used, revoked)",
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: { json: jsonFlag },
  examples: ['paysail keys list mer_…'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const keys = await withPlatform(io, deps, (platform) => platform.services.merchants.listApiKeys(merchantId));
    if (booleanFlag(args, 'json')) {
      const rows = keys.map((key) => ({
        id: key.id,
        name: key.name,
        last4: key.last4,
        createdAt: key.createdAt.getTime(),
        lastUsedAt: key.lastUsedAt?.getTime() ?? null,
        revokedAt: key.revokedAt?.getTime() ?? null,
      }));
      writeLine(io.stdout, JSON.stringify(rows, null, 2));
      return exitCodes.ok;
    }
    for (const key of keys) {
      const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
      const used = key.lastUsedAt ? `last used ${key.lastUsedAt.toISOString()}` : 'never used';
      writeLine(io.stdout, `${key.id}\t…${key.last4}\t${state}\t${used}\t${key.name}`);
    }
    return exitCodes.ok;
  },
};

const revoke: Command = {
  name: 'keys revoke',
  audit: { action: 'adminApiKeys_revoke', target: 'KEY_ID' },
  summary: 'revoke an API key at once (requests with it answer 401)',
  positionals: [{ name: 'MERCHANT_ID' }, { name: 'KEY_ID' }],
  flags: {},
  details: [
    'KEY_ID is key_… (see `keys list`); the key sk_<lookup>_<secret> has the id key_<lookup>.',
    'Revoking a revoked key is not an error. Other API processes stop accepting it within 2 seconds.',
  ],
  examples: ['paysail keys revoke mer_… key_…'],
  async run({ io, deps, args }) {
    const [merchantId, keyArgument] = args.positionals as [string, string];
    // Accept the secret key itself too: its lookup part is the id, and nothing else of it is used.
    const match = /^sk_([0-9a-z]+)_/.exec(keyArgument);
    const keyId = match ? `key_${match[1]}` : keyArgument;
    await withPlatform(io, deps, (platform) => platform.services.merchants.revokeApiKey(merchantId, keyId));
    writeLine(io.stdout, `API key ${keyId} of ${merchantId} revoked`);
    return exitCodes.ok;
  },
};

export const keyCommands: readonly Command[] = [create, list, revoke];
