import { and, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Executor } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueEmail, renderEmail } from '../email/index.ts';
import type { AttemptResult } from './http-client.ts';

/** An endpoint failing this long gets a warning e-mail … */
export const failureWarningAfterMs = 3 * 24 * 60 * 60 * 1000;
/** … and is disabled (with another e-mail) once it has failed this long without a success. */
export const failureDisableAfterMs = 5 * 24 * 60 * 60 * 1000;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * An endpoint's health after each attempt, in the attempt's transaction (moved out of
 * delivery.ts): failures warn after 3 days and disable after 5 (at once on 410), each with an
 * e-mail to the merchant's account address.
 */
export function createEndpointHealth(deps: { keyRing: KeyRing; logger: Logger; publicUrl: string }) {
  const { keyRing, logger } = deps;

  async function notifyMerchant(tx: Executor, endpoint: EndpointRow, merchantEmail: string, now: Date, kind: 'failing' | 'disabled', detail: string): Promise<void> {
    const mode = endpoint.livemode ? 'live' : 'sandbox';
    const since = endpoint.failingSince ? endpoint.failingSince.toISOString() : now.toISOString();
    const content =
      kind === 'failing'
        ? renderEmail({
            subject: `Your ${mode} webhook endpoint is failing`,
            paragraphs: [
              `Deliveries to your ${mode} webhook endpoint ${endpoint.url} (${endpoint.id}) have failed since ${since}.`,
              `Last answer: ${detail}.`,
              `If no delivery succeeds by ${new Date((endpoint.failingSince ?? now).getTime() + failureDisableAfterMs).toISOString()}, the endpoint will be disabled. Failed deliveries are retried for about a day; you can redeliver any event later with POST /v1/events/:id/redeliver.`,
            ],
            action: { label: 'Open the dashboard', url: `${deps.publicUrl}/dashboard` },
          })
        : renderEmail({
            subject: `Your ${mode} webhook endpoint was disabled`,
            paragraphs: [
              `We disabled your ${mode} webhook endpoint ${endpoint.url} (${endpoint.id}): ${detail}.`,
              'No further events are sent to it. Once it works again, enable it with POST /v1/webhook_endpoints/:id {"status":"ENABLED"} (or in the dashboard) and redeliver the events you missed.',
            ],
            action: { label: 'Open the dashboard', url: `${deps.publicUrl}/dashboard` },
          });
    await enqueueEmail(tx, now, keyRing, {
      merchantId: endpoint.merchantId,
      livemode: endpoint.livemode,
      to: merchantEmail,
      template: kind === 'failing' ? 'webhook_endpoint_failing' : 'webhook_endpoint_disabled',
      relatedId: endpoint.id,
      ...content,
    });
  }

  async function disableEndpoint(tx: Executor, endpoint: EndpointRow, merchantEmail: string, reason: 'GONE' | 'FAILING', now: Date): Promise<void> {
    const disabled = await tx
      .update(webhookEndpoints)
      .set({ status: 'DISABLED', disabledReason: reason, disabledAt: now, updatedAt: now })
      .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.status, 'ENABLED')))
      .returning({ id: webhookEndpoints.id });
    if (disabled.length === 1) {
      logger.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
      await notifyMerchant(tx, endpoint, merchantEmail, now, 'disabled', reason === 'GONE' ? 'it answered 410 Gone' : 'every delivery failed for 5 days');
    }
  }

  /** Success clears the failure streak; failures start it, warn after 3 days, disable after 5 (or at once on 410). */
  async function updateEndpointHealth(tx: Executor, endpoint: EndpointRow, merchantEmail: string, result: AttemptResult, now: Date): Promise<void> {
    if (result.ok) {
      if (endpoint.failingSince) {
        await tx.update(webhookEndpoints).set({ failingSince: null, failureWarningSentAt: null, updatedAt: now }).where(eq(webhookEndpoints.id, endpoint.id));
      }
      return;
    }
    if (result.statusCode === 410) {
      await disableEndpoint(tx, endpoint, merchantEmail, 'GONE', now);
      return;
    }
    if (!endpoint.failingSince) {
      await tx.update(webhookEndpoints).set({ failingSince: now, updatedAt: now }).where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.failingSince)));
      return;
    }
    const failingFor = now.getTime() - endpoint.failingSince.getTime();
    if (failingFor >= failureDisableAfterMs) {
      await disableEndpoint(tx, endpoint, merchantEmail, 'FAILING', now);
    } else if (failingFor >= failureWarningAfterMs && !endpoint.failureWarningSentAt) {
      const claimed = await tx
        .update(webhookEndpoints)
        .set({ failureWarningSentAt: now })
        .where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.failureWarningSentAt), eq(webhookEndpoints.status, 'ENABLED')))
        .returning({ id: webhookEndpoints.id });
      if (claimed.length === 1) {
        await notifyMerchant(tx, endpoint, merchantEmail, now, 'failing', result.error ?? `HTTP ${result.statusCode ?? '?'}`);
      }
    }
  }

  return { updateEndpointHealth };
}
