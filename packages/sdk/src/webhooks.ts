import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { WebhookEvent } from './types.ts';

export type { WebhookEvent } from './types.ts';

/** Thrown by `webhooks.verify`; the message says which check failed. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** What the body `signature` covers: an event without its `signature`. */
export interface UnsignedEvent {
  id: string;
  type: string;
  createdAt: number;
  livemode: boolean;
  data: unknown;
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default the current time). */
  now?: Date | number;
}

/** `Headers`, or Node's `IncomingHttpHeaders` / any plain object (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

const secretPrefix = 'whsec_';

function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  if (key.length === 0) {
    throw new WebhookVerificationError('The webhook secret is empty');
  }
  return key;
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) {
      return typeof value === 'string' ? value : value?.join(' ');
    }
  }
  return undefined;
}

function equalText(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isEvent(value: unknown): value is UnsignedEvent & { signature: string } {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const event = value as Record<string, unknown>;
  return (
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.createdAt === 'number' &&
    typeof event.livemode === 'boolean' &&
    typeof event.data === 'object' &&
    event.data !== null &&
    typeof event.signature === 'string'
  );
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<timestamp>.<raw body>`. */
export function headerSignature(webhookId: string, timestampSeconds: number, body: string, secret: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The body `signature`: base64 HMAC-SHA256 of the RFC 8785 canonical JSON of the event without `signature`. */
export function bodySignature(event: UnsignedEvent, secret: string): string {
  const { id, type, createdAt, livemode, data } = event;
  return createHmac('sha256', secretKey(secret)).update(canonicalJson({ id, type, createdAt, livemode, data })).digest('base64');
}

/**
 * Verifies a Paysail webhook delivery and returns its event, typed from the document's `webhooks`
 * section as a union discriminated by `type` (`switch (event.type)` narrows `data`); throws
 * `WebhookVerificationError`.
 *
 * 1. `webhook-timestamp` is within `toleranceSeconds` of now (an old request replayed fails);
 * 2. one `v1,` entry of `webhook-signature` is the Standard Webhooks HMAC of the raw body (what
 *    `new Webhook(secret).verify()` of the `standardwebhooks` library checks);
 * 3. the body's own `signature` matches the event, and its `id` is the `webhook-id`.
 *
 * Pass the raw body exactly as received, not re-serialised JSON. During a secret rotation's grace
 * period pass both secrets: `[newSecret, previousSecret]`.
 */
export function verify(headers: WebhookHeaders, rawBody: string | Uint8Array, secret: string | readonly string[], options: VerifyWebhookOptions = {}): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((candidate) => typeof candidate !== 'string' || candidate === '')) {
    throw new WebhookVerificationError('No webhook secret given');
  }
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const webhookId = readHeader(headers, 'webhook-id');
  const timestampText = readHeader(headers, 'webhook-timestamp')?.trim();
  const signatures = readHeader(headers, 'webhook-signature');
  if (!webhookId || !timestampText || !signatures) {
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d+$/.test(timestampText)) {
    throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  }
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const nowSeconds = Math.floor(nowMs / 1000);
  if (nowSeconds - timestamp > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s old (possible replay)`);
  }
  if (timestamp - nowSeconds > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s in the future`);
  }

  const passed = signatures
    .split(' ')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('v1,'));
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
  if (!isEvent(event)) {
    throw new WebhookVerificationError('The body is not a Paysail event (id, type, createdAt, livemode, data, signature)');
  }
  if (event.id !== webhookId) {
    throw new WebhookVerificationError('The body id differs from the webhook-id header');
  }
  const signed = event;
  if (!secrets.some((candidate) => equalText(signed.signature, bodySignature(signed, candidate)))) {
    throw new WebhookVerificationError('The body signature does not match the event with this secret');
  }
  // Signed by the server with this secret: the body is the event its `type` names in the document
  // (an event type newer than this SDK also passes: handle the `default` of a switch).
  return event as WebhookEvent;
}

/** `webhooks.verify(headers, rawBody, secret)`, plus the two signature functions it is built from. */
export const webhooks = { verify, headerSignature, bodySignature } as const;
