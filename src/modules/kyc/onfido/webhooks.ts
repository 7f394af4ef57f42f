import type { DefaultApi, WebhookEventVerifier } from '@onfido/api';
import type { Logger } from 'pino';
import type { Database } from '../../../db/client.ts';
import { AppError } from '../../../http/errors.ts';
import type { JobDefinition } from '../../../jobs/worker.ts';
import type { Clock } from '../../../clock.ts';
import { loadProviderPackage, recordProviderEvent, type ProviderCheck, type ProviderWebhookHandler } from '../../providers/index.ts';
import { onfidoCall, verificationIdOfTags } from './adapter.ts';

export const onfidoEventQueue = 'onfido.event';

/** The events that can change a verification's outcome (register these at Onfido). */
export const onfidoEventsHandled = ['check.completed', 'check.withdrawn', 'report.completed', 'report.withdrawn'] as const;

export interface OnfidoAccount {
  readonly environment: 'live' | 'test';
  readonly client: DefaultApi;
  readonly webhookToken: string;
}

type EventPayload = { environment: 'live' | 'test'; resourceType: 'check' | 'report'; objectId: string };

/**
 * `POST /providers/onfido/webhooks`: verifies `X-SHA2-Signature` (HMAC-SHA256 of the raw body with
 * the webhook token, by the package's own `WebhookEventVerifier`) against the live token, then the
 * test one; records the event for the `onfido.event` job, once per (action, object, completion).
 */
export function createOnfidoWebhookHandler(deps: { database: Database; clock: Clock; accounts: readonly OnfidoAccount[] }): ProviderWebhookHandler {
  const { WebhookEventVerifier: Verifier } = loadProviderPackage('@onfido/api');
  const verifiers = deps.accounts.map((account) => ({ environment: account.environment, verifier: new Verifier(account.webhookToken) }));
  return {
    provider: 'onfido',
    async receive({ rawBody, headers }) {
      const signature = headers['x-sha2-signature'];
      if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) {
        throw new AppError('WRONG_PARAMETER', 'X-SHA2-Signature is missing or malformed', { field: 'X-SHA2-Signature' });
      }
      let verified: { environment: 'live' | 'test'; event: ReturnType<WebhookEventVerifier['readPayload']> } | null = null;
      for (const { environment, verifier } of verifiers) {
        try {
          verified = { environment, event: verifier.readPayload(rawBody, signature) };
          break;
        } catch {
          // Not this account's token (or not JSON): try the next; none → rejected below.
        }
      }
      if (!verified) {
        throw new AppError('WRONG_PARAMETER', 'X-SHA2-Signature does not match the body', { field: 'X-SHA2-Signature' });
      }
      const payload = verified.event.payload;
      const object = payload?.object;
      if (!payload || !object || typeof object.id !== 'string' || typeof payload.action !== 'string') {
        throw new AppError('WRONG_PARAMETER', 'payload.object.id and payload.action are required', { field: 'payload' });
      }
      if (!(onfidoEventsHandled as readonly string[]).includes(payload.action) || (payload.resource_type !== 'check' && payload.resource_type !== 'report')) {
        return; // Acknowledged, nothing to do (an event we do not act on).
      }
      const eventId = `${verified.environment}:${payload.action}:${object.id}:${object.completed_at_iso8601 ?? object.status ?? ''}`;
      const job: EventPayload = { environment: verified.environment, resourceType: payload.resource_type, objectId: object.id };
      await recordProviderEvent(deps.database, deps.clock.now(), { provider: 'onfido', eventId, queue: onfidoEventQueue, payload: job });
    },
  };
}

/**
 * The `onfido.event` job: trusts the webhook only as "something changed". It fetches the object
 * from Onfido (a report → its check), finds our verification from the check's tag, and lets the KYC
 * service read the outcome and apply it (a decision lands once, whatever the order of events).
 */
export function onfidoEventJob(deps: { accounts: readonly OnfidoAccount[]; refresh: (verificationId: string) => Promise<unknown>; logger: Logger }): JobDefinition<EventPayload> {
  return {
    queue: onfidoEventQueue,
    maxAttempts: 20,
    handle: async ({ environment, resourceType, objectId }) => {
      const account = deps.accounts.find((candidate) => candidate.environment === environment);
      if (!account) {
        return;
      }
      const checkId = resourceType === 'report' ? (await onfidoCall('findReport', () => account.client.findReport(objectId))).data.check_id : objectId;
      if (!checkId) {
        return;
      }
      const { data: check } = await onfidoCall('findCheck', () => account.client.findCheck(checkId));
      const verificationId = verificationIdOfTags(check.tags);
      if (!verificationId) {
        deps.logger.info({ checkId }, 'onfido event for a check that is not ours: ignored');
        return;
      }
      await deps.refresh(verificationId);
    },
  };
}

/** `paysail providers check`: lists the account's webhooks (a harmless read) and says whether ours is registered. */
export function onfidoProviderCheck(account: OnfidoAccount, publicUrl: string): ProviderCheck {
  const ours = `${publicUrl}/providers/onfido/webhooks`;
  return {
    provider: 'onfido',
    environment: account.environment,
    async check() {
      const { data } = await onfidoCall('listWebhooks', () => account.client.listWebhooks());
      const webhook = data.webhooks.find((candidate) => candidate.url === ours);
      const events = webhook?.events ?? [];
      const missing = onfidoEventsHandled.filter((event) => !events.includes(event));
      if (!webhook) {
        return `credentials work; no webhook for ${ours} yet (register it with the events ${onfidoEventsHandled.join(', ')})`;
      }
      return `credentials work; webhook for ${ours} ${webhook.enabled === false ? 'is disabled' : 'is enabled'}${missing.length > 0 ? `, missing events ${missing.join(', ')}` : ''}`;
    },
  };
}
