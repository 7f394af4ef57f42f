import type { KeyRing } from '../../crypto/keyring.ts';
import type { Clock } from '../../clock.ts';
import type { AttemptResult, WebhookHttpClient } from './http-client.ts';
import { attemptTimeoutMs } from './fairness.ts';
import { buildSignedRequest } from './signing.ts';
import type { AttemptTarget, EndpointRow } from './attempt-log.ts';

/** Decrypted endpoint secrets kept per process. */
const secretCacheSize = 2_000;

export function secretAssociatedData(endpoint: { merchantId: string; id: string }, which: 'secret' | 'previous_secret'): string {
  return `webhook_endpoints|${endpoint.merchantId}|${endpoint.id}|${which}`;
}

/** Signs and sends attempts (no transaction open meanwhile): `send(target)`. */
export function createAttemptSender(deps: {
  clock: Clock;
  /** Real time for `webhook-timestamp`: receivers compare it with their own clocks. */
  wallClock: Clock;
  keyRing: KeyRing;
  client: WebhookHttpClient;
  /** The configured attempt timeout; endpoints that timed out get a shorter one. */
  timeoutMs: number;
}): { send(target: AttemptTarget): Promise<AttemptResult> } {
  const { clock, wallClock, keyRing, client } = deps;

  /**
   * Decrypted signing secrets, by endpoint and ciphertext (a rotation changes the ciphertext, so a
   * stale entry is never used). Saves an AES-GCM decryption per attempt; bounded, in memory only.
   */
  const secrets = new Map<string, string>();
  function decryptSecret(endpoint: EndpointRow, ciphertext: string, which: 'secret' | 'previous_secret'): string {
    const key = `${endpoint.id}|${which}|${ciphertext}`;
    const cached = secrets.get(key);
    if (cached !== undefined) {
      return cached;
    }
    const secret = keyRing.decrypt(ciphertext, secretAssociatedData(endpoint, which));
    if (secrets.size >= secretCacheSize) {
      secrets.clear();
    }
    secrets.set(key, secret);
    return secret;
  }

  /** Signs and sends one attempt (no transaction open meanwhile). */
  async function send(target: AttemptTarget): Promise<AttemptResult> {
    const { endpoint, event } = target;
    const now = clock.now();
    const secret = decryptSecret(endpoint, endpoint.secretCiphertext, 'secret');
    const previous =
      endpoint.previousSecretCiphertext && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now.getTime()
        ? decryptSecret(endpoint, endpoint.previousSecretCiphertext, 'previous_secret')
        : null;
    // During a rotation's grace period the body keeps the previous secret's signature (receivers
    // not yet updated keep verifying) and the header carries both (docs/webhooks.md).
    const request = buildSignedRequest(
      { id: event.id, type: event.type, createdAt: event.createdAt.getTime(), livemode: event.livemode, data: event.data as Record<string, unknown> },
      { bodySecret: previous ?? secret, headerSecrets: previous ? [secret, previous] : [secret], timestampSeconds: Math.floor(wallClock.now().getTime() / 1000) },
    );
    return client.send({ url: endpoint.url, headers: request.headers, body: request.body, livemode: event.livemode, timeoutMs: attemptTimeoutMs(endpoint, deps.timeoutMs) });
  }

  return { send };
}
