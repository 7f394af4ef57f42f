import type { IncomingHttpHeaders } from 'node:http';

/**
 * What every live-provider adapter (Stripe, Onfido, Increase, Circle) plugs into. The modules that
 * own the money or data (payments, KYC, payout pages) own their adapters; this module only carries
 * what they share: the credentials check behind `paysail providers check` and the inbound webhook
 * route `POST /providers/<provider>/webhooks`.
 */

/** `paysail providers check`: a harmless read with the configured credentials. */
export interface ProviderCheck {
  /** `stripe`, `onfido`, `increase`, `circle`. */
  readonly provider: string;
  /** Which credentials: the live ones, or the provider's test environment backing sandbox mode. */
  readonly environment: 'live' | 'test';
  /** Resolves to a one-line, secret-free description of what was read (account name, balance…); throws when the credentials do not work. */
  check(): Promise<string>;
}

export interface ProviderWebhookRequest {
  /** The body exactly as received: provider signatures are computed over these bytes. */
  readonly rawBody: Buffer;
  readonly headers: IncomingHttpHeaders;
}

/**
 * An inbound webhook endpoint of one provider. `receive` verifies the signature with the
 * provider's own scheme (throwing `AppError('WRONG_PARAMETER', …)` → 400 when it does not hold,
 * having written nothing), then records the event for a job (`recordProviderEvent`): ack fast,
 * work after, deduplicated on the provider's event id.
 */
export interface ProviderWebhookHandler {
  /** The path segment: `/providers/<provider>/webhooks`. */
  readonly provider: string;
  receive(request: ProviderWebhookRequest): Promise<void>;
}
