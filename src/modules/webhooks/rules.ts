import { wrongParameter } from '../../http/errors.ts';
import { blockedLiteral, isLocalHostname } from './ssrf.ts';

/**
 * Checks a webhook URL when an endpoint is created or changed: absolute http(s), https in live mode,
 * no credentials, and no IP literal or local name that can only mean an address the endpoint may not
 * reach: in live mode (and in sandbox unless private targets are allowed) anything but a public
 * address; in sandbox with private targets allowed, link-local and cloud metadata addresses. Names are checked again on every delivery against what they resolve
 * to then (ssrf.ts); this early check only gives a clear 400 for the obvious cases.
 */
export function validateEndpointUrl(raw: string, options: { livemode: boolean; allowPrivateTargets: boolean }): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw wrongParameter('url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw wrongParameter('url', 'must use http or https');
  }
  if (options.livemode && url.protocol !== 'https:') {
    throw wrongParameter('url', 'must use https in live mode');
  }
  if (url.username !== '' || url.password !== '') {
    throw wrongParameter('url', 'must not contain a user name or password');
  }
  if (url.hostname === '') {
    throw wrongParameter('url', 'must name a host');
  }
  if (url.hash !== '') {
    throw wrongParameter('url', 'must not contain a #fragment');
  }
  if (!options.allowPrivateTargets || options.livemode) {
    const refusal = blockedLiteral(url.hostname, 'public');
    if (refusal !== null || isLocalHostname(url.hostname)) {
      throw wrongParameter('url', `must point to a public address${options.livemode ? ' in live mode' : ''} (private, loopback, link-local and reserved addresses are refused)`);
    }
  } else if (blockedLiteral(url.hostname, 'private') !== null) {
    throw wrongParameter('url', 'must not point to a link-local or cloud metadata address');
  }
  return url.toString();
}

/**
 * Said to the operator when a merchant gets live mode on an installation that lets sandbox webhook
 * endpoints reach loopback and private addresses (live endpoints never can).
 */
export const privateTargetsLiveWarning =
  'WEBHOOK_ALLOW_PRIVATE_TARGETS is true on this installation: the sandbox webhook endpoints of this merchant may reach loopback and private addresses of the network this server runs in (live endpoints never can). Set WEBHOOK_ALLOW_PRIVATE_TARGETS=false (or listen on a non-loopback HOST) before letting merchants you do not control use it.';

/** `['*']` (every type) or distinct event types; `'*'` cannot be mixed with types. */
export function normalizeEnabledEvents(input: readonly string[] | undefined): string[] {
  if (input === undefined) {
    return ['*'];
  }
  if (input.includes('*') && input.length > 1) {
    throw wrongParameter('enabledEvents', 'must be ["*"] or a list of event types, not both');
  }
  return [...input];
}

export function subscribes(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes('*') || enabledEvents.includes(type);
}
