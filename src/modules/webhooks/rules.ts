import { wrongParameter } from '../../http/errors.ts';
import { blockedLiteral, isLocalHostname } from './ssrf.ts';

/**
 * Checks a webhook URL when an endpoint is created or changed: absolute http(s), https in live mode,
 * no credentials, and — unless private targets are allowed — no IP literal or local name that can
 * only mean a private address. Names are checked again on every delivery against what they resolve
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
  if (!options.allowPrivateTargets) {
    const refusal = blockedLiteral(url.hostname);
    if (refusal !== null || isLocalHostname(url.hostname)) {
      throw wrongParameter('url', 'must point to a public address (private, loopback, link-local and reserved addresses are refused)');
    }
  }
  return url.toString();
}

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
