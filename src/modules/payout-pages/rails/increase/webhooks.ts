import type Increase from 'increase';
import type { Database } from '../../../../db/client.ts';
import { AppError } from '../../../../http/errors.ts';
import type { JobDefinition } from '../../../../jobs/worker.ts';
import type { Clock } from '../../../../clock.ts';
import { providerCall, recordProviderEvent, type ProviderWebhookHandler } from '../../../providers/index.ts';
import type { PayoutRailUpdates } from '../types.ts';

export const increaseEventsQueue = 'increase.events';
export const increaseSandboxEventsQueue = 'increase-sandbox.events';

function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : Array.isArray(value) ? [[name, value.join(',')]] : [])));
}

/**
 * Increase's webhooks: verified with the package's own `events.unwrap` (Standard Webhooks:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 with the webhook secret),
 * recorded once per event id, and handled in a job that fetches the event and the transfer from
 * Increase before telling the payout pages that something changed (never trusting the body).
 */
export function createIncreaseWebhooks(deps: { client: Increase; webhookSecret: string; environment: 'live' | 'test'; database: Database; clock: Clock; updates: PayoutRailUpdates }) {
  const { client, webhookSecret, database, clock, updates } = deps;
  // Increase's sandbox has its own event subscription, secret and endpoint (/providers/increase-sandbox/webhooks).
  const provider = deps.environment === 'test' ? 'increase-sandbox' : 'increase';
  const queue = deps.environment === 'test' ? increaseSandboxEventsQueue : increaseEventsQueue;
  const handler: ProviderWebhookHandler = {
    provider,
    async receive(request) {
      let event: Increase.Event;
      try {
        event = client.events.unwrap(request.rawBody.toString('utf8'), { headers: headerRecord(request.headers), key: webhookSecret });
      } catch {
        throw new AppError('WRONG_PARAMETER', 'webhook-signature does not verify against the body (Increase webhook)', { field: 'webhook-signature' });
      }
      if (typeof event.id !== 'string' || event.id.length === 0) {
        throw new AppError('WRONG_PARAMETER', 'id is required (the Increase event id)', { field: 'id' });
      }
      await recordProviderEvent(database, clock.now(), { provider, eventId: event.id, queue, payload: { eventId: event.id } });
    },
  };
  const job: JobDefinition<{ eventId: string }> = {
    queue,
    maxAttempts: 20,
    handle: async ({ eventId }, context) => {
      const event = await providerCall('increase', 'events.retrieve', () => client.events.retrieve(eventId));
      let payoutId: string | null;
      if (event.associated_object_type === 'ach_transfer') {
        payoutId = (await providerCall('increase', 'achTransfers.retrieve', () => client.achTransfers.retrieve(event.associated_object_id))).idempotency_key;
      } else if (event.associated_object_type === 'real_time_payments_transfer') {
        payoutId = (await providerCall('increase', 'realTimePaymentsTransfers.retrieve', () => client.realTimePaymentsTransfers.retrieve(event.associated_object_id))).idempotency_key;
      } else {
        return;
      }
      if (!payoutId) {
        return;
      }
      await context.transaction((tx) => updates.railChanged(tx, clock.now(), payoutId));
    },
  };
  return { handler, job };
}
