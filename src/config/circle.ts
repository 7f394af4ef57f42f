/**
 * Circle (developer-controlled wallets: live USDC payouts) settings, read and validated with the
 * rest of the configuration (src/config/index.ts). CIRCLE_API_KEY turns the rail on; the entity
 * secret and at least one operator wallet are then required. Secrets are never echoed in messages.
 */
export const circleFeeLevels = ['LOW', 'MEDIUM', 'HIGH'] as const;

export interface CircleConfig {
  readonly apiKey: string;
  /** 32 bytes, hex: the SDK encrypts it for every request that moves money (entity secret ciphertext). */
  readonly entitySecret: string;
  /** The operator's wallets payouts are sent from (one per blockchain; Circle says which chain each is on). */
  readonly walletIds: readonly string[];
  readonly feeLevel: (typeof circleFeeLevels)[number];
  /** When set, only notifications of this webhook subscription are accepted. */
  readonly webhookSubscriptionId: string | undefined;
  /** `https://api.circle.com` unless set (tests point it at the replica). */
  readonly baseUrl: string | undefined;
  /** `TEST_API_KEY:…` keys work on Circle's testnets (Sepolia, Amoy, Base Sepolia, Solana devnet). */
  readonly environment: 'live' | 'test';
}

type Env = Record<string, string | undefined>;
type Fail = (variable: string, message: string) => never;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The live keys (CIRCLE_*, which may be a TEST_API_KEY for Circle's testnets); null when CIRCLE_API_KEY is unset. */
export function readCircle(env: Env, fail: Fail, readUrl: (name: string) => string | undefined): CircleConfig | null {
  return readCredentials(env, 'CIRCLE_', fail, readUrl);
}

/**
 * Circle's testnet keys backing sandbox mode (CIRCLE_TEST_*: a TEST_API_KEY, its entity secret and
 * wallets; all three or none); null when none is set.
 */
export function readCircleTest(env: Env, fail: Fail, readUrl: (name: string) => string | undefined): CircleConfig | null {
  const required = ['CIRCLE_TEST_API_KEY', 'CIRCLE_TEST_ENTITY_SECRET', 'CIRCLE_TEST_WALLET_ID'] as const;
  const present = required.filter((name) => set(env, name) !== undefined);
  const missing = required.find((name) => !present.includes(name));
  if (present.length > 0 && missing) {
    fail(missing, `must be set together with ${present.join(', ')} (Circle's testnets back sandbox USDC payouts with all three, or none)`);
  }
  const config = readCredentials(env, 'CIRCLE_TEST_', fail, readUrl);
  if (config && config.environment !== 'test') {
    fail('CIRCLE_TEST_API_KEY', 'must be a Circle testnet key (TEST_API_KEY:…:…); live keys go in CIRCLE_API_KEY');
  }
  return config;
}

function readCredentials(env: Env, prefix: 'CIRCLE_' | 'CIRCLE_TEST_', fail: Fail, readUrl: (name: string) => string | undefined): CircleConfig | null {
  const name = (suffix: string) => `${prefix}${suffix}`;
  const apiKey = set(env, name('API_KEY'));
  const dependents = ['ENTITY_SECRET', 'WALLET_ID', 'FEE_LEVEL', 'WEBHOOK_SUBSCRIPTION_ID', 'BASE_URL'].map(name);
  if (apiKey === undefined) {
    const orphan = dependents.find((dependent) => set(env, dependent) !== undefined);
    if (orphan) {
      fail(name('API_KEY'), `is required when ${orphan} is set`);
    }
    return null;
  }
  const match = /^(LIVE|TEST)_API_KEY:[A-Za-z0-9]+:[A-Za-z0-9]+$/.exec(apiKey);
  if (!match) {
    fail(name('API_KEY'), 'must be a Circle API key (LIVE_API_KEY:…:… or TEST_API_KEY:…:…)');
  }
  const entitySecret = set(env, name('ENTITY_SECRET')) ?? '';
  if (!/^[0-9a-f]{64}$/i.test(entitySecret)) {
    fail(name('ENTITY_SECRET'), `is required with ${name('API_KEY')}: the registered entity secret, 64 hex characters`);
  }
  const walletIds = (set(env, name('WALLET_ID')) ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (walletIds.length === 0 || walletIds.some((id) => !uuidPattern.test(id))) {
    fail(name('WALLET_ID'), `is required with ${name('API_KEY')}: the id (a UUID) of the operator wallet payouts are sent from; one per blockchain, comma-separated`);
  }
  const feeLevel = (set(env, name('FEE_LEVEL')) ?? 'MEDIUM').toUpperCase();
  if (!(circleFeeLevels as readonly string[]).includes(feeLevel)) {
    fail(name('FEE_LEVEL'), `must be one of ${circleFeeLevels.join(', ')}`);
  }
  const webhookSubscriptionId = set(env, name('WEBHOOK_SUBSCRIPTION_ID'));
  if (webhookSubscriptionId !== undefined && !uuidPattern.test(webhookSubscriptionId)) {
    fail(name('WEBHOOK_SUBSCRIPTION_ID'), 'must be the id (a UUID) of the Circle notification subscription');
  }
  return Object.freeze({
    apiKey,
    entitySecret: entitySecret.toLowerCase(),
    walletIds: Object.freeze(walletIds),
    feeLevel: feeLevel as CircleConfig['feeLevel'],
    webhookSubscriptionId,
    baseUrl: readUrl(name('BASE_URL')),
    environment: match?.[1] === 'TEST' ? 'test' : 'live',
  });
}

export const circleConfigDocumentation: ReadonlyArray<{ name: string; fallback: string; meaning: string }> = [
  { name: 'CIRCLE_API_KEY', fallback: '(unset)', meaning: 'Circle API key (`LIVE_API_KEY:…`; `TEST_API_KEY:…` uses Circle’s testnets): live USDC payouts through Circle developer-controlled wallets. With it, CIRCLE_ENTITY_SECRET and CIRCLE_WALLET_ID are required.' },
  { name: 'CIRCLE_ENTITY_SECRET', fallback: '(unset)', meaning: 'The entity secret registered with Circle (64 hex characters).' },
  { name: 'CIRCLE_WALLET_ID', fallback: '(unset)', meaning: 'The operator’s Circle wallet(s) USDC payouts are sent from, comma-separated, one per blockchain (Ethereum, Polygon, Base, Solana).' },
  { name: 'CIRCLE_FEE_LEVEL', fallback: 'MEDIUM', meaning: 'Network fee level of USDC transfers: LOW, MEDIUM or HIGH.' },
  { name: 'CIRCLE_WEBHOOK_SUBSCRIPTION_ID', fallback: '(unset)', meaning: 'When set, only Circle notifications of this subscription (pointed at `/providers/circle/webhooks`) are accepted.' },
  { name: 'CIRCLE_BASE_URL', fallback: 'https://api.circle.com', meaning: 'Circle API base URL.' },
  { name: 'CIRCLE_TEST_API_KEY', fallback: '(unset)', meaning: 'Optional Circle testnet key (`TEST_API_KEY:…`): sandbox-mode USDC payouts go through Circle’s testnets (Sepolia, Amoy, Base Sepolia, Solana devnet) instead of the built-in sandbox rail (whose `dead` wallet rule then no longer applies). With CIRCLE_TEST_ENTITY_SECRET and CIRCLE_TEST_WALLET_ID: all three or none.' },
  { name: 'CIRCLE_TEST_ENTITY_SECRET', fallback: '(required with CIRCLE_TEST_API_KEY)', meaning: 'The entity secret registered with the testnet key (64 hex characters).' },
  { name: 'CIRCLE_TEST_WALLET_ID', fallback: '(required with CIRCLE_TEST_API_KEY)', meaning: 'The testnet operator wallet(s) sandbox USDC payouts are sent from, comma-separated, one per blockchain.' },
  { name: 'CIRCLE_TEST_FEE_LEVEL', fallback: 'MEDIUM', meaning: 'Network fee level of sandbox USDC transfers: LOW, MEDIUM or HIGH.' },
  { name: 'CIRCLE_TEST_WEBHOOK_SUBSCRIPTION_ID', fallback: '(unset)', meaning: 'When set, only notifications of this testnet subscription (pointed at `/providers/circle-test/webhooks`) are accepted.' },
  { name: 'CIRCLE_TEST_BASE_URL', fallback: 'https://api.circle.com', meaning: 'Testing only: the API base for the testnet key (a replica).' },
];
