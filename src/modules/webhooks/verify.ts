/**
 * Verifies a Paysail webhook on the receiving side (docs/guides/webhooks.md). One implementation
 * serves the project and integrators: the SDK's (`packages/sdk/src/webhooks.ts`, `webhooks.verify`),
 * which a receiver can use without the rest of this service. It checks:
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
export { verifyWebhook, WebhookVerificationError } from '@paysail/sdk';
export type { VerifyWebhookOptions, WebhookEvent as VerifiedWebhookEvent } from '@paysail/sdk';
