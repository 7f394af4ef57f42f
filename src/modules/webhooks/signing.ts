import { createHmac, randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * Webhook signing, shared by the sender and `verify.ts`. Kept free of server imports so a receiver
 * can copy `verify.ts` and this file alone.
 *
 * A secret is `whsec_` + base64 of 24 random bytes; the HMAC key is the decoded bytes (exactly the
 * key the standardwebhooks library derives from the same string).
 */
export const secretPrefix = 'whsec_';

/** The event as delivered, without its `signature` member. */
export interface WebhookEventPayload {
  id: string;
  type: string;
  /** Epoch milliseconds. */
  createdAt: number;
  livemode: boolean;
  data: Record<string, unknown>;
}

export function generateWebhookSecret(): string {
  return secretPrefix + randomBytes(24).toString('base64');
}

export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) {
    throw new Error('webhook secret is empty');
  }
  return key;
}

/** RFC 8785 canonical JSON of any JSON value (throws on values JSON cannot carry). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new Error('value has no JSON form');
  }
  return text;
}

/** The body `signature`: base64 HMAC-SHA256 over the canonical JSON of the event without `signature`. */
export function bodySignature(event: WebhookEventPayload, secret: string): string {
  const { id, type, createdAt, livemode, data } = event;
  return createHmac('sha256', secretKey(secret)).update(canonicalJson({ id, type, createdAt, livemode, data })).digest('base64');
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<timestamp>.<body>`. */
export function headerSignature(webhookId: string, timestampSeconds: number, body: string, secret: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The request a delivery sends. `bodySecret` signs the body; every secret in `headerSecrets` adds a
 * space-separated `v1,` signature to `webhook-signature` (both secrets during a rotation's grace period).
 * The body is the canonical JSON of the signed event, so it is identical on every retry.
 */
export function buildSignedRequest(event: WebhookEventPayload, options: { bodySecret: string; headerSecrets: readonly string[]; timestampSeconds: number }): { body: string; headers: Record<string, string> } {
  const body = canonicalJson({ ...event, signature: bodySignature(event, options.bodySecret) });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(options.timestampSeconds),
      'webhook-signature': options.headerSecrets.map((secret) => headerSignature(event.id, options.timestampSeconds, body, secret)).join(' '),
    },
  };
}
