import { timingSafeEqual } from 'node:crypto';
import { bodySignature, headerSignature, type WebhookEventPayload } from './signing.ts';

/**
 * Verifies a Paysail webhook on the receiving side (docs/guides/webhooks.md):
 *
 * 1. `webhook-timestamp` is within `toleranceSeconds` (default 300) of `now` — replays of old
 *    requests fail;
 * 2. one of the `v1,` signatures in `webhook-signature` is the HMAC of `<webhook-id>.<timestamp>.<raw
 *    body>` (Standard Webhooks; the same check `new Webhook(secret).verify()` makes);
 * 3. the body's own `signature` is the HMAC of the RFC 8785 canonical JSON of the event without
 *    `signature`, and the body's `id` is the `webhook-id`.
 *
 * `secret` may be a list: during the grace period after a rotation pass the new and the previous
 * secret. Pass the raw body exactly as received (not re-serialised JSON). Returns the event, or
 * throws WebhookVerificationError saying which check failed.
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifiedWebhookEvent extends WebhookEventPayload {
  signature: string;
}

export interface VerifyWebhookOptions {
  toleranceSeconds?: number;
  /** The receiver's clock (default the current time). */
  now?: Date | number;
}

type HeaderBag = Headers | Record<string, string | readonly string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) {
      return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
    }
  }
  return undefined;
}

function equalText(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isEventShape(value: unknown): value is VerifiedWebhookEvent {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.id === 'string' &&
    typeof candidate.type === 'string' &&
    typeof candidate.createdAt === 'number' &&
    typeof candidate.livemode === 'boolean' &&
    typeof candidate.data === 'object' &&
    candidate.data !== null &&
    typeof candidate.signature === 'string'
  );
}

export function verifyWebhook(headers: HeaderBag, rawBody: string | Buffer | Uint8Array, secret: string | readonly string[], options: VerifyWebhookOptions = {}): VerifiedWebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((candidate) => candidate === '')) {
    throw new WebhookVerificationError('No webhook secret given');
  }
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const webhookId = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!webhookId || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d+$/.test(timestampHeader.trim())) {
    throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  }
  const timestamp = Number(timestampHeader.trim());
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const nowSeconds = Math.floor(nowMs / 1000);
  if (nowSeconds - timestamp > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s old (possible replay)`);
  }
  if (timestamp - nowSeconds > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s in the future`);
  }

  const passed = signatureHeader
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.trim());
  const headerMatches = secrets.some((candidate) => {
    const expected = headerSignature(webhookId, timestamp, body, candidate);
    return passed.some((entry) => equalText(entry, expected));
  });
  if (!headerMatches) {
    throw new WebhookVerificationError('webhook-signature does not match the body with this secret');
  }

  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
  if (!isEventShape(event)) {
    throw new WebhookVerificationError('The body is not a Paysail event (id, type, createdAt, livemode, data, signature)');
  }
  if (event.id !== webhookId) {
    throw new WebhookVerificationError('The body id differs from the webhook-id header');
  }
  const bodyMatches = secrets.some((candidate) => equalText(event.signature, bodySignature(event, candidate)));
  if (!bodyMatches) {
    throw new WebhookVerificationError('The body signature does not match the event with this secret');
  }
  return event;
}
