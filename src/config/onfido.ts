/**
 * Onfido (identity verification) settings, read and validated with the rest of the configuration
 * (src/config/index.ts). Live credentials make live KYC real; the optional test credentials point
 * sandbox mode at Onfido's own sandbox instead of the built-in deterministic provider.
 */
export interface OnfidoCredentials {
  readonly apiToken: string;
  readonly webhookToken: string;
  readonly region: 'EU' | 'US' | 'CA';
  /** Replicas in tests only: the API base (the package's `basePath`). Default: the region's. */
  readonly apiUrl: string | undefined;
}

export interface OnfidoSettings {
  readonly live: OnfidoCredentials | null;
  readonly test: OnfidoCredentials | null;
  /** Onfido's web SDK script, loaded by the hosted payout page for a document step-up. */
  readonly sdkUrl: string;
}

/** Onfido's own hosted web SDK (v14, the major this integration is written for). */
export const defaultOnfidoSdkUrl = 'https://sdk.onfido.com/v14';

type Env = Record<string, string | undefined>;
type Fail = (variable: string, message: string) => never;

const regions = ['EU', 'US', 'CA'] as const;

function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function readCredentials(env: Env, prefix: 'ONFIDO_' | 'ONFIDO_TEST_', fail: Fail): OnfidoCredentials | null {
  const tokenName = `${prefix}API_TOKEN`;
  const webhookName = `${prefix}WEBHOOK_TOKEN`;
  const regionName = `${prefix}REGION`;
  const apiToken = set(env, tokenName);
  const webhookToken = set(env, webhookName);
  const region = set(env, regionName);
  const apiUrl = set(env, `${prefix}API_URL`);
  if (apiToken === undefined) {
    if (webhookToken !== undefined || region !== undefined || apiUrl !== undefined) {
      fail(tokenName, `is required when ${webhookName}, ${regionName} or ${prefix}API_URL is set`);
    }
    return null;
  }
  const wrongKind = prefix === 'ONFIDO_' ? 'api_sandbox.' : 'api_live.';
  if (apiToken.startsWith(wrongKind)) {
    fail(tokenName, prefix === 'ONFIDO_' ? 'is a sandbox token (api_sandbox.…); live mode needs a live token — put sandbox tokens in ONFIDO_TEST_API_TOKEN' : 'is a live token (api_live.…); ONFIDO_TEST_API_TOKEN takes a sandbox token');
  }
  if (webhookToken === undefined) {
    fail(webhookName, `is required with ${tokenName}: it verifies the X-SHA2-Signature of Onfido's webhooks (shown once when the webhook is registered)`);
  }
  if (region === undefined || !(regions as readonly string[]).includes(region)) {
    fail(regionName, `must be one of ${regions.join(', ')} (the region of the Onfido account)${region === undefined ? '' : `, got "${region}"`}`);
  }
  if (apiUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(apiUrl)) {
    fail(`${prefix}API_URL`, 'must be an http(s) URL');
  }
  return { apiToken, webhookToken, region: region as OnfidoCredentials['region'], apiUrl: apiUrl?.replace(/\/+$/, '') };
}

/**
 * ONFIDO_SDK_URL: https, or http on a loopback host only (a test stand-in): the script runs on the
 * page where the customer shows their identity document.
 */
function readSdkUrl(env: Env, fail: Fail): string {
  const value = set(env, 'ONFIDO_SDK_URL');
  if (value === undefined) {
    return defaultOnfidoSdkUrl;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('ONFIDO_SDK_URL', 'must be an absolute URL (Onfido\'s web SDK script)');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    fail('ONFIDO_SDK_URL', 'must be an https URL (plain http only on a loopback host, for tests)');
  }
  if (url.username || url.password || url.hash) {
    fail('ONFIDO_SDK_URL', 'must not carry credentials or a fragment');
  }
  return url.href;
}

export function readOnfidoSettings(env: Env, fail: Fail): OnfidoSettings {
  return { live: readCredentials(env, 'ONFIDO_', fail), test: readCredentials(env, 'ONFIDO_TEST_', fail), sdkUrl: readSdkUrl(env, fail) };
}

export const onfidoConfigDocumentation: ReadonlyArray<{ name: string; fallback: string; meaning: string }> = [
  { name: 'ONFIDO_API_TOKEN', fallback: '(unset)', meaning: 'Onfido live API token: live KYC through Onfido. Unset: live verifications stay PENDING.' },
  { name: 'ONFIDO_WEBHOOK_TOKEN', fallback: '(required with ONFIDO_API_TOKEN)', meaning: 'Token of the Onfido webhook registered at `$PUBLIC_URL/providers/onfido/webhooks` (verifies `X-SHA2-Signature`).' },
  { name: 'ONFIDO_REGION', fallback: '(required with ONFIDO_API_TOKEN)', meaning: '`EU`, `US` or `CA`: the region of the Onfido account.' },
  { name: 'ONFIDO_TEST_API_TOKEN', fallback: '(unset)', meaning: 'Onfido sandbox token: sandbox mode verifies through Onfido\'s sandbox instead of the built-in provider.' },
  { name: 'ONFIDO_TEST_WEBHOOK_TOKEN', fallback: '(required with ONFIDO_TEST_API_TOKEN)', meaning: 'Token of the sandbox account\'s webhook.' },
  { name: 'ONFIDO_TEST_REGION', fallback: '(required with ONFIDO_TEST_API_TOKEN)', meaning: 'Region of the Onfido sandbox account.' },
  {
    name: 'ONFIDO_SDK_URL',
    fallback: defaultOnfidoSdkUrl,
    meaning: "Onfido's web SDK script, loaded by the hosted payout page when a customer must show documents (step-up); its origin joins that page's CSP. https only (http on a loopback host, for tests).",
  },
  { name: 'ONFIDO_API_URL', fallback: 'the region\'s API', meaning: 'Testing only: the Onfido API base (a replica). Never set in production.' },
  { name: 'ONFIDO_TEST_API_URL', fallback: 'the region\'s API', meaning: 'Testing only: the API base for the test credentials (a replica).' },
];
