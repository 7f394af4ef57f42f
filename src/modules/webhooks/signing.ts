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
  return signCanonical(unsignedCanonicalJson(event), secret);
}

function unsignedCanonicalJson(event: WebhookEventPayload): string {
  const { id, type, createdAt, livemode, data } = event;
  return canonicalJson({ id, type, createdAt, livemode, data });
}

function signCanonical(canonical: string, secret: string): string {
  return createHmac('sha256', secretKey(secret)).update(canonical).digest('base64');
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<timestamp>.<body>`. */
export function headerSignature(webhookId: string, timestampSeconds: number, body: string, secret: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The canonical JSON of the signed event, from the canonical JSON of the unsigned one without
 * serialising the event again: the members are sorted (createdAt, data, id, livemode, signature,
 * type), so `signature` goes right before the final `type` member. Falls back to serialising when
 * the text does not end as expected.
 */
function withSignature(unsigned: string, event: WebhookEventPayload, signature: string): string {
  const typeMember = `,"type":${JSON.stringify(event.type)}}`;
  if (!unsigned.endsWith(typeMember)) {
    return canonicalJson({ ...event, signature });
  }
  return `${unsigned.slice(0, -typeMember.length)},"signature":${JSON.stringify(signature)}${typeMember}`;
}

/**
 * The request a delivery sends. `bodySecret` signs the body; every secret in `headerSecrets` adds a
 * space-separated `v1,` signature to `webhook-signature` (both secrets during a rotation's grace period).
 * The body is the canonical JSON of the signed event, so it is identical on every retry.
 */
export function buildSignedRequest(event: WebhookEventPayload, options: { bodySecret: string; headerSecrets: readonly string[]; timestampSeconds: number }): { body: string; headers: Record<string, string> } {
  const unsigned = unsignedCanonicalJson(event);
  const body = withSignature(unsigned, event, signCanonical(unsigned, options.bodySecret));
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
