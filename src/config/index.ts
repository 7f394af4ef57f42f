import net from 'node:net';
import path from 'node:path';
import { onfidoConfigDocumentation, readOnfidoSettings, type OnfidoSettings } from './onfido.ts';
import { circleConfigDocumentation, readCircle, readCircleTest, type CircleConfig } from './circle.ts';
import { increaseConfigDocumentation, readIncrease, readIncreaseSandbox, type IncreaseConfig } from './increase.ts';
import { readRetentionDefaults, retentionConfigDocumentation, type RetentionDefaults } from './retention.ts';

/**
 * Every environment variable Paysail reads, with its default and meaning. This is the only place
 * that touches process.env; everything else receives the frozen Config.
 */
export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  /** Base of the API, hosted pages and dashboard (docs/API.md §1). */
  readonly publicUrl: string;
  readonly dataDir: string;
  /** PostgreSQL's shared_buffers of the embedded database, in MB (decision 0067). */
  readonly pgliteSharedBuffersMb: number;
  /** PostgreSQL URL; when absent the embedded PGlite database in dataDir is used. */
  readonly databaseUrl: string | undefined;
  readonly adminApiKey: string | undefined;
  /** `kid:base64key,…` — the first key encrypts, all decrypt. Absent: a key file in dataDir. */
  readonly encryptionKeys: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly redisUrl: string | undefined;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs, or loopback/linklocal/uniquelocal); empty: none. */
  readonly trustProxy: readonly string[];
  /** Failed authentications allowed per client address: sustained per second, and at once. */
  readonly authFailuresPerSecond: number;
  readonly authFailureBurst: number;
  readonly rateLimitPerSecond: number;
  readonly rateLimitBurst: number;
  /** The merchant-wide limit (the sum over all its keys); the operator can override it per merchant. */
  readonly merchantRateLimitPerSecond: number;
  readonly merchantRateLimitBurst: number;
  /** Requests handled at once by one process; more are answered 503 at once (load shedding). 0: no limit. */
  readonly maxInFlightRequests: number;
  /** Event-loop delay (ms) beyond which new requests are answered 503 (load shedding). 0: off. */
  readonly maxEventLoopDelayMs: number;
  readonly sandboxKycDelayMs: number;
  readonly sandboxPayoutDelayMs: number;
  /** Payout attempts without a final answer this long after hand-over are looked up again. */
  readonly payoutReconcileAfterMs: number;
  readonly webhookAllowPrivateTargets: boolean;
  /** One webhook attempt (connect + answer) must finish within this; docs/API.md §12 says 15 s. */
  readonly webhookTimeoutMs: number;
  /** An attempt unanswered after this long counts as slow for delivery fairness (webhooks/fairness.ts). */
  readonly webhookSlowAttemptMs: number;
  /** How long a claimed job is held before another worker may take it over (its worker died). */
  readonly jobLeaseMs: number;
  readonly role: 'all' | 'api' | 'worker';
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly jobPollIntervalMs: number;
  readonly workerConcurrency: number;
  /** How long each kind of personal data and log is kept, unless the operator overrides it (src/config/retention.ts). */
  readonly retention: RetentionDefaults;
  /** Onfido (KYC) credentials, live and test; see src/config/onfido.ts. */
  readonly onfido: OnfidoSettings;
  /** Live card payments through Stripe (`STRIPE_*`); undefined when not configured. */
  readonly stripe: StripeConfig | undefined;
  /** Sandbox card payments through a Stripe test account (`STRIPE_TEST_*`) instead of the built-in sandbox processor; undefined when not configured. */
  readonly stripeTest: StripeConfig | undefined;
  /** Live bank payouts through Increase; null when INCREASE_API_KEY is unset. */
  readonly increase: IncreaseConfig | null;
  /** Sandbox bank payouts through Increase's sandbox (INCREASE_SANDBOX_*); null: the built-in sandbox rail. */
  readonly increaseSandbox: IncreaseConfig | null;
  /** Live USDC payouts through Circle; null when CIRCLE_API_KEY is unset. */
  readonly circle: CircleConfig | null;
  /** Sandbox USDC payouts through Circle's testnets (CIRCLE_TEST_*); null: the built-in sandbox rail. */
  readonly circleTest: CircleConfig | null;
}

export interface StripeConfig {
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  /** Stripe's API base (a replica in tests). */
  readonly apiUrl: string;
  /** Where the hosted checkout loads Stripe.js from (Stripe's own URL; a stand-in in tests): its origin is the only one the page's CSP allows for Stripe. */
  readonly jsUrl: string;
}

export const stripeJsDefaultUrl = 'https://js.stripe.com/v3/';

/** STRIPE_JS_URL: https (plain http only on this machine, for tests), no credentials. */
function readStripeJsUrl(env: Env): string {
  const raw = readUrl(env, 'STRIPE_JS_URL', ['https:', 'http:']) ?? stripeJsDefaultUrl;
  const url = new URL(raw);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new ConfigError('STRIPE_JS_URL', 'must use https: (plain http: only for a loopback address)');
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError('STRIPE_JS_URL', 'must not carry credentials');
  }
  return url.href;
}

export type { IncreaseConfig } from './increase.ts';
export type { CircleConfig } from './circle.ts';

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new ConfigError(name, `must be an integer, got "${raw}"`);
  }
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const normalized = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(normalized)) {
    return true;
  }
  if (['false', '0', 'no'].includes(normalized)) {
    return false;
  }
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function readUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

/** A listen address that only this machine can reach: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

const proxyKeywords = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: a comma-separated list of proxy addresses, CIDRs or the keywords above. */
function readTrustProxy(env: Env): string[] {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw.trim() === '') {
    return [];
  }
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (proxyKeywords.includes(entry)) {
      continue;
    }
    const [address = '', bits, extra] = entry.split('/');
    const family = net.isIP(address);
    const maxBits = family === 4 ? 32 : 128;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !validBits || extra !== undefined) {
      throw new ConfigError('TRUST_PROXY', `must list proxy addresses or CIDRs (or ${proxyKeywords.join(', ')}), comma-separated; "${entry}" is neither`);
    }
  }
  return entries;
}

/**
 * Stripe keys of one account: all three or none, each of its documented kind (never echoed in the
 * message). `STRIPE_*`: the live account (live card payments); `STRIPE_TEST_*`: a test account that
 * backs sandbox mode instead of the built-in sandbox processor.
 */
function readStripe(env: Env, environment: 'live' | 'test'): StripeConfig | undefined {
  const prefix = environment === 'live' ? 'STRIPE_' : 'STRIPE_TEST_';
  const secretName = `${prefix}SECRET_KEY`;
  const publishableName = `${prefix}PUBLISHABLE_KEY`;
  const webhookName = `${prefix}WEBHOOK_SECRET`;
  const names = [secretName, publishableName, webhookName];
  const present = names.filter((name) => env[name] !== undefined && env[name] !== '');
  if (present.length === 0) {
    return undefined;
  }
  const missing = names.find((name) => !present.includes(name));
  if (missing) {
    const purpose = environment === 'live' ? 'live card payments through Stripe need all three' : 'sandbox card payments through a Stripe test account need all three';
    throw new ConfigError(missing, `must be set together with ${present.join(', ')} (${purpose})`);
  }
  const secretKey = env[secretName] ?? '';
  const publishableKey = env[publishableName] ?? '';
  const webhookSecret = env[webhookName] ?? '';
  const mode = environment === 'live' ? 'live' : 'test';
  if (!new RegExp(`^(sk|rk)_${mode}_[A-Za-z0-9_]+$`).test(secretKey)) {
    const hint = environment === 'live' ? ' — put test keys in STRIPE_TEST_SECRET_KEY' : '; live keys go in STRIPE_SECRET_KEY';
    throw new ConfigError(secretName, `must be a ${mode} secret or restricted key (sk_${mode}_… or rk_${mode}_…)${/^(sk|rk)_(live|test)_/.test(secretKey) ? hint : ''}`);
  }
  if (!new RegExp(`^pk_${mode}_[A-Za-z0-9_]+$`).test(publishableKey)) {
    throw new ConfigError(publishableName, `must be a ${mode} publishable key (pk_${mode}_…)`);
  }
  if (!/^whsec_[A-Za-z0-9_]+$/.test(webhookSecret)) {
    throw new ConfigError(webhookName, "must be the webhook endpoint's signing secret (whsec_…)");
  }
  return { secretKey, publishableKey, webhookSecret, apiUrl: readUrl(env, 'STRIPE_API_URL', ['https:', 'http:']) ?? 'https://api.stripe.com', jsUrl: readStripeJsUrl(env) };
}

/** The validation failure every settings reader reports through. */
function fail(variable: string, message: string): never {
  throw new ConfigError(variable, message);
}

function readRole(env: Env, argv: readonly string[]): Config['role'] {
  const flag = argv.find((argument) => argument.startsWith('--role='));
  if (flag) {
    return readEnum({ ROLE: flag.slice('--role='.length) }, 'ROLE', ['all', 'api', 'worker'] as const, 'all');
  }
  return readEnum(env, 'ROLE', ['all', 'api', 'worker'] as const, 'all');
}

export function loadConfig(env: Env = process.env, argv: readonly string[] = process.argv): Config {
  const nodeEnv = readEnum(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const port = readInteger(env, 'PORT', 4000, 0, 65535);
  // The embedded default listens on this machine only; HOST=0.0.0.0 opts in to every interface.
  const host = env.HOST && env.HOST !== '' ? env.HOST : '127.0.0.1';
  const publicUrl = (readUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const adminApiKey = env.ADMIN_API_KEY && env.ADMIN_API_KEY !== '' ? env.ADMIN_API_KEY : undefined;
  if (adminApiKey !== undefined && adminApiKey.length < 24) {
    throw new ConfigError('ADMIN_API_KEY', 'must be at least 24 characters');
  }
  const encryptionKeys = env.ENCRYPTION_KEYS && env.ENCRYPTION_KEYS !== '' ? env.ENCRYPTION_KEYS : undefined;
  if (nodeEnv === 'production' && encryptionKeys === undefined && databaseUrl !== undefined) {
    throw new ConfigError('ENCRYPTION_KEYS', 'is required in production with PostgreSQL (generate one with `npm run cli -- crypto generate-key`)');
  }
  const authFailuresPerSecond = readInteger(env, 'AUTH_FAILURES_PER_SECOND', 5, 1, 1_000_000);
  const authFailureBurst = readInteger(env, 'AUTH_FAILURE_BURST', 50, 1, 1_000_000);
  const rateLimitPerSecond = readInteger(env, 'RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000);
  const rateLimitBurst = readInteger(env, 'RATE_LIMIT_BURST', 200, 1, 1_000_000);
  if (rateLimitBurst < rateLimitPerSecond) {
    throw new ConfigError('RATE_LIMIT_BURST', `must be at least RATE_LIMIT_PER_SECOND (${rateLimitPerSecond})`);
  }
  // By default a merchant may use, across all its keys, what one key may: more keys do not multiply it.
  const merchantRateLimitPerSecond = readInteger(env, 'MERCHANT_RATE_LIMIT_PER_SECOND', rateLimitPerSecond, 1, 1_000_000);
  const merchantRateLimitBurst = readInteger(env, 'MERCHANT_RATE_LIMIT_BURST', Math.max(rateLimitBurst, merchantRateLimitPerSecond), 1, 1_000_000);
  if (merchantRateLimitBurst < merchantRateLimitPerSecond) {
    throw new ConfigError('MERCHANT_RATE_LIMIT_BURST', `must be at least MERCHANT_RATE_LIMIT_PER_SECOND (${merchantRateLimitPerSecond})`);
  }
  // Sandbox webhooks may target loopback and private addresses by default only on a development
  // server that itself listens on loopback (the embedded default); never in production by default,
  // and live endpoints never may (webhooks/ssrf.ts).
  const privateTargetsDefault = nodeEnv !== 'production' && isLoopbackHost(host);
  const webhookTimeoutMs = readInteger(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000);
  const webhookSlowAttemptMs = readInteger(env, 'WEBHOOK_SLOW_ATTEMPT_MS', 1_000, 100, 60_000);
  const jobLeaseMs = readInteger(env, 'JOB_LEASE_MS', 60_000, 1_000, 3_600_000);
  if (jobLeaseMs < webhookTimeoutMs + 1_000) {
    // A lease shorter than one webhook attempt would hand a running delivery to a second worker.
    throw new ConfigError('JOB_LEASE_MS', `must be at least WEBHOOK_TIMEOUT_MS + 1000 (${webhookTimeoutMs + 1_000})`);
  }
  return Object.freeze({
    nodeEnv,
    port,
    host,
    publicUrl,
    dataDir: path.resolve(env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data'),
    pgliteSharedBuffersMb: readInteger(env, 'PGLITE_SHARED_BUFFERS_MB', defaultPgliteSharedBuffersMb, 1, 1024),
    databaseUrl,
    adminApiKey,
    encryptionKeys,
    smtpUrl: readUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM && env.MAIL_FROM !== '' ? env.MAIL_FROM : 'Paysail <no-reply@paysail.localhost>',
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    trustProxy: readTrustProxy(env),
    authFailuresPerSecond,
    authFailureBurst,
    rateLimitPerSecond,
    rateLimitBurst,
    merchantRateLimitPerSecond,
    merchantRateLimitBurst,
    maxInFlightRequests: readInteger(env, 'MAX_IN_FLIGHT_REQUESTS', 256, 0, 1_000_000),
    maxEventLoopDelayMs: readInteger(env, 'MAX_EVENT_LOOP_DELAY_MS', 0, 0, 60_000),
    sandboxKycDelayMs: readInteger(env, 'SANDBOX_KYC_DELAY_MS', 2000, 0, 3_600_000),
    sandboxPayoutDelayMs: readInteger(env, 'SANDBOX_PAYOUT_DELAY_MS', 2000, 0, 3_600_000),
    payoutReconcileAfterMs: readInteger(env, 'PAYOUT_RECONCILE_AFTER_MS', 900_000, 1_000, 86_400_000),
    webhookAllowPrivateTargets: readBoolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', privateTargetsDefault),
    webhookTimeoutMs,
    webhookSlowAttemptMs,
    jobLeaseMs,
    role: readRole(env, argv),
    logLevel: readEnum(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    jobPollIntervalMs: readInteger(env, 'JOB_POLL_INTERVAL_MS', 500, 10, 60_000),
    workerConcurrency: readInteger(env, 'WORKER_CONCURRENCY', 4, 1, 64),
    retention: readRetentionDefaults(env, readInteger),
    onfido: readOnfidoSettings(env, (variable, message) => {
      throw new ConfigError(variable, message);
    }),
    stripe: readStripe(env, 'live'),
    stripeTest: readStripe(env, 'test'),
    increase: readIncrease(env, fail, (name) => readUrl(env, name, ['https:', 'http:'])),
    increaseSandbox: readIncreaseSandbox(env, fail, (name) => readUrl(env, name, ['https:', 'http:'])),
    circle: readCircle(env, fail, (name) => readUrl(env, name, ['https:', 'http:'])),
    circleTest: readCircleTest(env, fail, (name) => readUrl(env, name, ['https:', 'http:'])),
  });
}

/**
 * The embedded database's buffer pool (decision 0067): PGlite's own default (PostgreSQL's 128 MB)
 * makes every open set up four times the memory, a third of an open's time; the embedded database
 * is for small deployments, and the operating system caches its files beyond the pool.
 */
export const defaultPgliteSharedBuffersMb = 32;

/** The configuration table rendered in README.md; kept here so the two cannot drift far. */
export const configDocumentation: ReadonlyArray<{ name: string; fallback: string; meaning: string }> = [
  { name: 'PORT', fallback: '4000', meaning: 'HTTP port for the API, hosted pages and dashboard.' },
  { name: 'HOST', fallback: '127.0.0.1', meaning: 'Interface to listen on; `0.0.0.0` (or `::`) listens on every interface, as a server behind a proxy or in a container needs.' },
  { name: 'PUBLIC_URL', fallback: 'http://localhost:$PORT', meaning: 'Public base URL used in page links and e-mails.' },
  { name: 'DATA_DIR', fallback: './data', meaning: 'Embedded PGlite database and local key file.' },
  { name: 'PGLITE_SHARED_BUFFERS_MB', fallback: String(defaultPgliteSharedBuffersMb), meaning: 'Buffer pool of the embedded PGlite database in MB (1–1024); the operating system caches the rest of its files. Smaller opens faster.' },
  { name: 'DATABASE_URL', fallback: '(unset)', meaning: 'PostgreSQL URL; when set, PGlite is not used.' },
  { name: 'ADMIN_API_KEY', fallback: 'generated at first start', meaning: 'Bearer token of the operator admin API (`/admin/v1`).' },
  { name: 'ENCRYPTION_KEYS', fallback: 'key file in DATA_DIR', meaning: '`kid:base64(32 bytes)` list, first encrypts; required in production with PostgreSQL.' },
  { name: 'SMTP_URL', fallback: '(unset)', meaning: 'SMTP server for e-mail; unset keeps mail in the sandbox inbox.' },
  { name: 'MAIL_FROM', fallback: 'Paysail <no-reply@paysail.localhost>', meaning: 'Sender of customer e-mails.' },
  { name: 'REDIS_URL', fallback: '(unset)', meaning: 'Shares rate limits across processes.' },
  { name: 'TRUST_PROXY', fallback: '(unset: no proxy trusted)', meaning: 'Comma-separated addresses or CIDRs of the reverse proxies in front of Paysail (or `loopback`, `linklocal`, `uniquelocal`); their `X-Forwarded-For` then gives the client address that per-address limits (failed authentications, dashboard sign-in) use. Unset behind a proxy, every client shares the proxy\'s address.' },
  { name: 'AUTH_FAILURES_PER_SECOND', fallback: '5', meaning: 'Failed authentications (API key or admin token) allowed per client address per second, sustained; beyond the burst the address gets `429 RATE_LIMITED` with `Retry-After`, before any key lookup.' },
  { name: 'AUTH_FAILURE_BURST', fallback: '50', meaning: 'Failed authentications allowed at once per client address.' },
  { name: 'RATE_LIMIT_PER_SECOND', fallback: '100', meaning: 'Sustained requests per second per API key.' },
  { name: 'RATE_LIMIT_BURST', fallback: '200', meaning: 'Burst size per API key.' },
  { name: 'MERCHANT_RATE_LIMIT_PER_SECOND', fallback: 'RATE_LIMIT_PER_SECOND', meaning: "Sustained requests per second per merchant, summed over all its API keys (more keys do not multiply it). The operator can set another value for one merchant (`POST /admin/v1/merchants/:id/settings`)." },
  { name: 'MERCHANT_RATE_LIMIT_BURST', fallback: 'RATE_LIMIT_BURST', meaning: 'Burst size per merchant, summed over all its API keys.' },
  { name: 'MAX_IN_FLIGHT_REQUESTS', fallback: '256', meaning: 'Requests one process handles at once; beyond it answers `503 SERVICE_UNAVAILABLE` with `Retry-After` at once (load shedding; health and metrics exempt). 0 disables.' },
  { name: 'MAX_EVENT_LOOP_DELAY_MS', fallback: '0 (off)', meaning: 'When the event loop fell behind by more than this (checked every half-threshold, 5–100 ms; 3 bounds latency under overload, see docs/reliability/model-overload.md), new requests get `503 SERVICE_UNAVAILABLE` with `Retry-After` until it catches up (load shedding for a process that is itself the bottleneck, e.g. on PGlite).' },
  { name: 'SANDBOX_KYC_DELAY_MS', fallback: '2000', meaning: 'Sandbox KYC provider decision delay.' },
  { name: 'SANDBOX_PAYOUT_DELAY_MS', fallback: '2000', meaning: 'Sandbox payout rail settlement delay; also how long sandbox card refunds take to settle, and when the sandbox opens the dispute of card `4000000000000259`.' },
  { name: 'WEBHOOK_ALLOW_PRIVATE_TARGETS', fallback: 'true when HOST is a loopback address and NODE_ENV is not production, else false', meaning: 'Let sandbox webhook endpoints target loopback and private addresses. Live endpoints never may, and link-local / cloud metadata addresses are refused everywhere.' },
  { name: 'WEBHOOK_TIMEOUT_MS', fallback: '15000', meaning: 'Time limit of one webhook attempt (connect to last byte).' },
  { name: 'WEBHOOK_SLOW_ATTEMPT_MS', fallback: '1000', meaning: 'A webhook attempt unanswered after this long counts as slow: an endpoint with 4 slow attempts in flight, or a merchant with 16, gets no new attempt until they finish.' },
  { name: 'JOB_LEASE_MS', fallback: '60000', meaning: 'How long a claimed job is held before another worker may take it over; at least WEBHOOK_TIMEOUT_MS + 1000.' },
  { name: 'ROLE', fallback: 'all', meaning: '`api`, `worker` or `all` (also `--role=`).' },
  { name: 'LOG_LEVEL', fallback: 'info', meaning: 'pino log level.' },
  { name: 'JOB_POLL_INTERVAL_MS', fallback: '500', meaning: 'Worker poll interval (LISTEN/NOTIFY wakes it sooner).' },
  { name: 'WORKER_CONCURRENCY', fallback: '4', meaning: 'Jobs run at once per worker process.' },
  { name: 'NODE_ENV', fallback: 'development', meaning: '`production` tightens defaults.' },
  ...retentionConfigDocumentation,
  ...onfidoConfigDocumentation,
  { name: 'STRIPE_SECRET_KEY', fallback: '(unset)', meaning: 'Live Stripe secret or restricted key (`sk_live_…`/`rk_live_…`); with the next two, enables live card payments through Stripe.' },
  { name: 'STRIPE_PUBLISHABLE_KEY', fallback: '(unset)', meaning: 'Live Stripe publishable key (`pk_live_…`), used by the hosted checkout in the browser.' },
  { name: 'STRIPE_WEBHOOK_SECRET', fallback: '(unset)', meaning: 'Signing secret (`whsec_…`) of the Stripe webhook endpoint `PUBLIC_URL/providers/stripe/webhooks`.' },
  { name: 'STRIPE_TEST_SECRET_KEY', fallback: '(unset)', meaning: 'Stripe test-mode secret or restricted key (`sk_test_…`/`rk_test_…`); with the next two, sandbox card payments go through this Stripe test account (hosted checkout with the Payment Element, Stripe\'s test cards) instead of the built-in sandbox processor.' },
  { name: 'STRIPE_TEST_PUBLISHABLE_KEY', fallback: '(unset)', meaning: 'Stripe test-mode publishable key (`pk_test_…`), used by the sandbox hosted checkout in the browser.' },
  { name: 'STRIPE_TEST_WEBHOOK_SECRET', fallback: '(unset)', meaning: 'Signing secret (`whsec_…`) of the test account\'s webhook endpoint, pointed at the same `PUBLIC_URL/providers/stripe/webhooks`.' },
  { name: 'STRIPE_API_URL', fallback: 'https://api.stripe.com', meaning: "Stripe's API base; change only to reach Stripe through a proxy (tests point it at a replica)." },
  { name: 'STRIPE_JS_URL', fallback: stripeJsDefaultUrl, meaning: "Where the hosted checkout loads Stripe.js from; keep Stripe's own URL (tests point it at a stand-in). The checkout's CSP allows this origin only (Stripe's documented origins for the default)." },
  { name: 'PAYOUT_RECONCILE_AFTER_MS', fallback: '900000', meaning: 'Payouts handed to a rail this long ago without a final answer are looked up again (and the reconciliation runs this often).' },
  ...increaseConfigDocumentation,
  ...circleConfigDocumentation,
];
