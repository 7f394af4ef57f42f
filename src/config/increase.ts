/**
 * Increase (bank payouts) settings, read and validated with the rest of the configuration
 * (src/config/index.ts). INCREASE_API_KEY turns the live rail on; the account and the webhook
 * secret are then required. The optional INCREASE_SANDBOX_* keys (Increase's sandbox environment)
 * back sandbox-mode bank payouts instead of the built-in sandbox rail: all three or none.
 * Secrets are never echoed in messages.
 */
export interface IncreaseConfig {
  readonly apiKey: string;
  readonly accountId: string;
  readonly webhookSecret: string;
  /** Production unless set (`https://sandbox.increase.com` for Increase's sandbox). */
  readonly baseURL: string | undefined;
  /** INCREASE_RTP_ENABLED: Real-Time Payments from this account number to banks that receive them; null: ACH only. */
  readonly realTimePayments: { readonly sourceAccountNumberId: string } | null;
}

/** Increase's sandbox environment: the API the INCREASE_SANDBOX_* keys work against. */
export const increaseSandboxBaseUrl = 'https://sandbox.increase.com';

type Env = Record<string, string | undefined>;
type Fail = (variable: string, message: string) => never;

function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function validated(prefix: 'INCREASE_' | 'INCREASE_SANDBOX_', apiKey: string, accountId: string, webhookSecret: string, fail: Fail): void {
  if (!/^account_[a-z0-9]+$/.test(accountId)) {
    fail(`${prefix}ACCOUNT_ID`, `is required with ${prefix}API_KEY: the id (account_…) of the Increase account payouts are sent from`);
  }
  if (webhookSecret.length < 8) {
    fail(`${prefix}WEBHOOK_SECRET`, `is required with ${prefix}API_KEY: the shared secret of the Increase event subscription`);
  }
  if (/\s/.test(apiKey)) {
    fail(`${prefix}API_KEY`, 'must be an Increase API key (no spaces)');
  }
}

/**
 * INCREASE_RTP_ENABLED=true (with the live keys) sends Real-Time Payments to banks that receive them,
 * from INCREASE_RTP_ACCOUNT_NUMBER_ID (Increase sends RTP from an account number, not an account).
 */
function readRealTimePayments(env: Env, fail: Fail, liveKeys: boolean): IncreaseConfig['realTimePayments'] {
  const raw = (set(env, 'INCREASE_RTP_ENABLED') ?? 'false').toLowerCase();
  if (raw !== 'true' && raw !== 'false') {
    fail('INCREASE_RTP_ENABLED', 'must be true or false');
  }
  const accountNumberId = set(env, 'INCREASE_RTP_ACCOUNT_NUMBER_ID');
  if (raw === 'false') {
    if (accountNumberId !== undefined) {
      fail('INCREASE_RTP_ACCOUNT_NUMBER_ID', 'is only used with INCREASE_RTP_ENABLED=true');
    }
    return null;
  }
  if (!liveKeys) {
    fail('INCREASE_RTP_ENABLED', 'needs INCREASE_API_KEY (Real-Time Payments go through the live Increase rail)');
  }
  if (accountNumberId === undefined || !/^account_number_[a-z0-9]+$/.test(accountNumberId)) {
    fail('INCREASE_RTP_ACCOUNT_NUMBER_ID', 'is required with INCREASE_RTP_ENABLED=true: the id (account_number_…) of the account number Real-Time Payments are sent from');
  }
  return Object.freeze({ sourceAccountNumberId: accountNumberId });
}

/** The live rail's keys (INCREASE_*); null when INCREASE_API_KEY is unset. */
export function readIncrease(env: Env, fail: Fail, readUrl: (name: string) => string | undefined): IncreaseConfig | null {
  const apiKey = set(env, 'INCREASE_API_KEY');
  const realTimePayments = readRealTimePayments(env, fail, apiKey !== undefined);
  if (apiKey === undefined) {
    for (const name of ['INCREASE_ACCOUNT_ID', 'INCREASE_WEBHOOK_SECRET'] as const) {
      if (env[name]) {
        fail('INCREASE_API_KEY', `is required when ${name} is set`);
      }
    }
    return null;
  }
  const accountId = set(env, 'INCREASE_ACCOUNT_ID') ?? '';
  const webhookSecret = env.INCREASE_WEBHOOK_SECRET ?? '';
  validated('INCREASE_', apiKey, accountId, webhookSecret, fail);
  return Object.freeze({ apiKey, accountId, webhookSecret, baseURL: readUrl('INCREASE_BASE_URL'), realTimePayments });
}

const sandboxNames = ['INCREASE_SANDBOX_API_KEY', 'INCREASE_SANDBOX_ACCOUNT_ID', 'INCREASE_SANDBOX_WEBHOOK_SECRET'] as const;

/**
 * Increase's sandbox keys (INCREASE_SANDBOX_*) backing sandbox mode; null when none is set. All
 * three or none: one without the others names the first missing one.
 */
export function readIncreaseSandbox(env: Env, fail: Fail, readUrl: (name: string) => string | undefined): IncreaseConfig | null {
  const present = sandboxNames.filter((name) => set(env, name) !== undefined);
  if (present.length === 0) {
    if (set(env, 'INCREASE_SANDBOX_BASE_URL') !== undefined) {
      fail('INCREASE_SANDBOX_API_KEY', 'is required when INCREASE_SANDBOX_BASE_URL is set');
    }
    return null;
  }
  const missing = sandboxNames.find((name) => !present.includes(name));
  if (missing) {
    fail(missing, `must be set together with ${present.join(', ')} (Increase's sandbox backs sandbox bank payouts with all three, or none)`);
  }
  const apiKey = set(env, 'INCREASE_SANDBOX_API_KEY') ?? '';
  const accountId = set(env, 'INCREASE_SANDBOX_ACCOUNT_ID') ?? '';
  const webhookSecret = env.INCREASE_SANDBOX_WEBHOOK_SECRET ?? '';
  validated('INCREASE_SANDBOX_', apiKey, accountId, webhookSecret, fail);
  return Object.freeze({ apiKey, accountId, webhookSecret, baseURL: readUrl('INCREASE_SANDBOX_BASE_URL') ?? increaseSandboxBaseUrl, realTimePayments: null });
}

export const increaseConfigDocumentation: ReadonlyArray<{ name: string; fallback: string; meaning: string }> = [
  { name: 'INCREASE_API_KEY', fallback: '(unset)', meaning: 'Increase API key: live bank payouts (ACH) through Increase. With it, INCREASE_ACCOUNT_ID and INCREASE_WEBHOOK_SECRET are required.' },
  { name: 'INCREASE_ACCOUNT_ID', fallback: '(unset)', meaning: 'The Increase account (`account_…`) bank payouts are sent from.' },
  { name: 'INCREASE_WEBHOOK_SECRET', fallback: '(unset)', meaning: 'Shared secret of the Increase event subscription pointed at `/providers/increase/webhooks`.' },
  { name: 'INCREASE_BASE_URL', fallback: 'https://api.increase.com', meaning: 'Increase API base URL (`https://sandbox.increase.com` for Increase’s sandbox).' },
  { name: 'INCREASE_RTP_ENABLED', fallback: 'false', meaning: '`true`: a live bank payout to a bank that receives Real-Time Payments (Increase’s routing number lookup) is an RTP transfer, paid in seconds, instead of an ACH credit (up to $1,000,000.00). Needs the live Increase keys and INCREASE_RTP_ACCOUNT_NUMBER_ID.' },
  { name: 'INCREASE_RTP_ACCOUNT_NUMBER_ID', fallback: '(required with INCREASE_RTP_ENABLED=true)', meaning: 'The Increase account number (`account_number_…`, of INCREASE_ACCOUNT_ID) Real-Time Payments are sent from.' },
  { name: 'INCREASE_SANDBOX_API_KEY', fallback: '(unset)', meaning: 'Key of Increase’s sandbox environment: sandbox-mode bank payouts go through Increase’s sandbox instead of the built-in sandbox rail (whose `0002`/`0003` account rules then no longer apply to bank payouts). All three INCREASE_SANDBOX_* or none.' },
  { name: 'INCREASE_SANDBOX_ACCOUNT_ID', fallback: '(required with INCREASE_SANDBOX_API_KEY)', meaning: 'The sandbox Increase account (`account_…`) sandbox bank payouts are sent from.' },
  { name: 'INCREASE_SANDBOX_WEBHOOK_SECRET', fallback: '(required with INCREASE_SANDBOX_API_KEY)', meaning: 'Shared secret of the sandbox event subscription pointed at `/providers/increase-sandbox/webhooks`.' },
  { name: 'INCREASE_SANDBOX_BASE_URL', fallback: increaseSandboxBaseUrl, meaning: 'Testing only: the API base for the sandbox keys (a replica).' },
];
