import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';
import type { Merchant } from '../modules/merchants/index.ts';

function merchantJson(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    liveEnabled: merchant.liveEnabled,
    fraudReportWebhooksEnabled: merchant.fraudReportWebhooksEnabled,
    rateLimitPerSecond: merchant.rateLimitPerSecond,
    rateLimitBurst: merchant.rateLimitBurst,
    createdAt: merchant.createdAt.getTime(),
  };
}

const create: Command = {
  name: 'merchants create',
  audit: { action: 'adminMerchants_create' },
  summary: 'create a merchant; prints its API key and dashboard login once',
  positionals: [{ name: 'NAME' }, { name: 'EMAIL' }],
  flags: { json: jsonFlag },
  details: [
    'The merchant starts sandbox only (enable live with `merchants enable-live`). The API key and the',
    'dashboard password are stored only as hashes: keep them, they are not shown again.',
  ],
  examples: ["paysail merchants create 'Acme Payouts' ops@acme.example", 'paysail merchants create Acme ops@acme.example --json | jq -r .apiKey'],
  async run({ io, deps, args }) {
    const [name, rawEmail] = args.positionals as [string, string];
    if (name.trim() === '') {
      throw new UsageError('NAME must not be blank', 'merchants create');
    }
    const { normalizeEmail } = await import('../modules/customers/index.ts');
    let email: string;
    try {
      email = normalizeEmail('EMAIL', rawEmail);
    } catch (error) {
      throw new UsageError((error as Error).message, 'merchants create');
    }
    const created = await withPlatform(io, deps, (platform) => platform.services.merchants.createMerchant({ name: name.trim(), email }));
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(created, null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Merchant ${created.merchant.id} created: ${created.merchant.name} (sandbox only)`);
    writeLine(io.stdout, `  API key:          ${created.apiKey}`);
    writeLine(io.stdout, `  Dashboard login:  ${created.dashboardUser.email} / ${created.dashboardUser.password}`);
    writeLine(io.stdout, 'Shown once: only hashes are stored.');
    return exitCodes.ok;
  },
};

const list: Command = {
  name: 'merchants list',
  summary: 'list merchants (id, modes, name, e-mail), oldest first',
  positionals: [],
  flags: { json: jsonFlag },
  examples: ['paysail merchants list', 'paysail merchants list --json'],
  async run({ io, deps, args }) {
    const merchants = await withPlatform(io, deps, (platform) => platform.services.merchants.listMerchants());
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(merchants.map(merchantJson), null, 2));
      return exitCodes.ok;
    }
    for (const merchant of merchants) {
      writeLine(io.stdout, `${merchant.id}\t${merchant.liveEnabled ? 'live+sandbox' : 'sandbox'}\t${merchant.name}\t${merchant.email}`);
    }
    if (merchants.length === 0) {
      writeLine(io.stderr, 'no merchants yet (create one with: paysail merchants create NAME EMAIL)');
    }
    return exitCodes.ok;
  },
};

const enableLive: Command = {
  name: 'merchants enable-live',
  audit: { action: 'adminMerchants_enableLive', target: 'MERCHANT_ID' },
  summary: 'give a merchant live mode (its API keys then work with livemode=true)',
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: { json: jsonFlag },
  details: ['Idempotent: enabling a merchant that already has live mode changes nothing.'],
  examples: ['paysail merchants enable-live mer_…'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const { merchant, allowPrivateTargets } = await withPlatform(io, deps, async (platform) => ({
      merchant: await platform.services.merchants.enableLive(merchantId),
      allowPrivateTargets: platform.config.webhookAllowPrivateTargets,
    }));
    writeLine(io.stdout, booleanFlag(args, 'json') ? JSON.stringify(merchantJson(merchant), null, 2) : `Merchant ${merchant.id} (${merchant.name}) now has live and sandbox mode`);
    if (allowPrivateTargets) {
      const { privateTargetsLiveWarning } = await import('../modules/webhooks/index.ts');
      writeLine(io.stderr, `paysail: warning: ${privateTargetsLiveWarning}`);
    }
    return exitCodes.ok;
  },
};

/** `RATE/BURST` → the pair, `default` → null (reset), absent → undefined (unchanged). */
function parseRateLimit(value: string | undefined): { perSecond: number; burst: number } | null | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (value === 'default') {
    return null;
  }
  const match = /^([1-9][0-9]{0,6})\/([1-9][0-9]{0,6})$/.exec(value);
  if (!match) {
    throw new UsageError(`--rate-limit must be RATE/BURST (whole numbers, e.g. 50/100) or 'default', got "${value}"`, 'merchants settings');
  }
  return { perSecond: Number(match[1]), burst: Number(match[2]) };
}

const settings: Command = {
  name: 'merchants settings',
  audit: { action: 'adminMerchants_updateSettings', target: 'MERCHANT_ID' },
  summary: "show or change a merchant's settings (FRAUD_REPORTED webhook delivery)",
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: {
    'fraud-report-webhooks': {
      type: 'string',
      valueName: 'on|off',
      choices: ['on', 'off'],
      description: "deliver FRAUD_REPORTED events to the merchant's webhook endpoints (on) or not (off, the default)",
    },
    'rate-limit': {
      type: 'string',
      valueName: 'RATE/BURST|default',
      description: "the merchant-wide rate limit over all its API keys, e.g. 50/100 (requests per second / burst); 'default' returns to MERCHANT_RATE_LIMIT_PER_SECOND / _BURST",
    },
    json: jsonFlag,
  },
  details: [
    'Without an option it prints the settings and changes nothing. Like POST /admin/v1/merchants/:id/settings.',
    'Fraud reports and their FRAUD_REPORTED events exist either way (the merchant lists them with',
    'GET /v1/fraud_reports); the setting decides only whether webhook endpoints receive the events.',
    "Delivery is enabled at the merchant's request.",
  ],
  examples: ['paysail merchants settings mer_…', 'paysail merchants settings mer_… --fraud-report-webhooks on', 'paysail merchants settings mer_… --rate-limit 50/100'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const fraudReportWebhooks = stringFlag(args, 'fraud-report-webhooks');
    const rateLimit = parseRateLimit(stringFlag(args, 'rate-limit'));
    const changes = {
      ...(fraudReportWebhooks === undefined ? {} : { fraudReportWebhooksEnabled: fraudReportWebhooks === 'on' }),
      ...(rateLimit === undefined ? {} : { rateLimitPerSecond: rateLimit?.perSecond ?? null, rateLimitBurst: rateLimit?.burst ?? null }),
    };
    const changing = Object.keys(changes).length > 0;
    const merchant = await withPlatform(io, deps, (platform) =>
      changing ? platform.services.merchants.updateSettings(merchantId, changes) : platform.services.merchants.getMerchant(merchantId),
    );
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(merchantJson(merchant), null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Merchant ${merchant.id} (${merchant.name})${changing ? ' updated' : ''}:`);
    const delivered = merchant.fraudReportWebhooksEnabled;
    writeLine(io.stdout, `  fraud-report-webhooks  ${delivered ? 'on' : 'off'}  (FRAUD_REPORTED events ${delivered ? 'are' : 'are not'} delivered to webhook endpoints)`);
    const custom = merchant.rateLimitPerSecond !== null && merchant.rateLimitBurst !== null;
    writeLine(io.stdout, `  rate-limit             ${custom ? `${merchant.rateLimitPerSecond}/${merchant.rateLimitBurst}` : 'default'}  (requests per second / burst over all the merchant's API keys)`);
    return exitCodes.ok;
  },
};

export const merchantCommands: readonly Command[] = [create, list, enableLive, settings];
