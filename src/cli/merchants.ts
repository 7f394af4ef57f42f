import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';
import type { Merchant } from '../modules/merchants/service.ts';

function merchantJson(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    liveEnabled: merchant.liveEnabled,
    fraudReportWebhooksEnabled: merchant.fraudReportWebhooksEnabled,
    createdAt: merchant.createdAt.getTime(),
  };
}

const create: Command = {
  name: 'merchants create',
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
    const { normalizeEmail } = await import('../modules/customers/rules.ts');
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
      const { privateTargetsLiveWarning } = await import('../modules/webhooks/rules.ts');
      writeLine(io.stderr, `paysail: warning: ${privateTargetsLiveWarning}`);
    }
    return exitCodes.ok;
  },
};

const settings: Command = {
  name: 'merchants settings',
  summary: "show or change a merchant's settings (FRAUD_REPORTED webhook delivery)",
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: {
    'fraud-report-webhooks': {
      type: 'string',
      valueName: 'on|off',
      choices: ['on', 'off'],
      description: "deliver FRAUD_REPORTED events to the merchant's webhook endpoints (on) or not (off, the default)",
    },
    json: jsonFlag,
  },
  details: [
    'Without an option it prints the settings and changes nothing. Like POST /admin/v1/merchants/:id/settings.',
    'Fraud reports and their FRAUD_REPORTED events exist either way (the merchant lists them with',
    'GET /v1/fraud_reports); the setting decides only whether webhook endpoints receive the events.',
    "Delivery is enabled at the merchant's request.",
  ],
  examples: ['paysail merchants settings mer_…', 'paysail merchants settings mer_… --fraud-report-webhooks on'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const fraudReportWebhooks = stringFlag(args, 'fraud-report-webhooks');
    const merchant = await withPlatform(io, deps, (platform) =>
      fraudReportWebhooks === undefined
        ? platform.services.merchants.getMerchant(merchantId)
        : platform.services.merchants.updateSettings(merchantId, { fraudReportWebhooksEnabled: fraudReportWebhooks === 'on' }),
    );
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(merchantJson(merchant), null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Merchant ${merchant.id} (${merchant.name})${fraudReportWebhooks === undefined ? '' : ' updated'}:`);
    const delivered = merchant.fraudReportWebhooksEnabled;
    writeLine(io.stdout, `  fraud-report-webhooks  ${delivered ? 'on' : 'off'}  (FRAUD_REPORTED events ${delivered ? 'are' : 'are not'} delivered to webhook endpoints)`);
    return exitCodes.ok;
  },
};

export const merchantCommands: readonly Command[] = [create, list, enableLive, settings];
