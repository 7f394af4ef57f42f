import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Database } from '../../../../db/client.ts';
import { AppError } from '../../../../http/errors.ts';
import type { JobDefinition } from '../../../../jobs/worker.ts';
import type { Clock } from '../../../../clock.ts';
import { plainProviderError, providerCall, recordProviderEvent, type ProviderWebhookHandler } from '../../../providers/index.ts';
import type { PayoutRailUpdates } from '../types.ts';
import type { CircleClient } from './rail.ts';

export const circleNotificationsQueue = 'circle.notifications';
export const circleTestNotificationsQueue = 'circle-test.notifications';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const keyCacheSize = 32;

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return typeof value === 'string' ? value : '';
}

function invalid(field: string, message: string): AppError {
  return new AppError('WRONG_PARAMETER', `${field} ${message} (Circle notification)`, { field });
}

interface CircleNotification {
  subscriptionId?: unknown;
  notificationId?: unknown;
  notificationType?: unknown;
  notification?: { id?: unknown };
}

/**
 * Circle's notifications: verified with Circle's documented signature (ECDSA with SHA-256 over the
 * body exactly as sent, `X-Circle-Signature`, with the public key Circle publishes under the
 * `X-Circle-Key-Id` of the notification — fetched once per key id through the package and cached),
 * recorded once per notification id, and handled in a job that fetches the transaction from Circle
 * before telling the payout pages that something changed (never trusting the body).
 */
export function createCircleWebhooks(deps: { client: CircleClient; database: Database; clock: Clock; updates: PayoutRailUpdates; subscriptionId?: string | undefined; backsSandbox?: boolean | undefined }) {
  const { client, database, clock, updates } = deps;
  // The testnet keys backing sandbox mode have their own subscription, endpoint and queue.
  const provider = deps.backsSandbox ? 'circle-test' : 'circle';
  const queue = deps.backsSandbox ? circleTestNotificationsQueue : circleNotificationsQueue;
  const keys = new Map<string, Promise<KeyObject | null>>();

  /** Circle's public key of `keyId`, or null when Circle has none by that id (a forged header). */
  function publicKey(keyId: string): Promise<KeyObject | null> {
    let key = keys.get(keyId);
    if (!key) {
      key = (async () => {
        let data;
        try {
          data = (await client.getNotificationSignature(keyId)).data;
        } catch (error) {
          const status = (error as { status?: unknown; response?: { status?: unknown } } | null)?.response?.status ?? (error as { status?: unknown } | null)?.status;
          if (status === 404) {
            return null;
          }
          throw plainProviderError('circle', 'getNotificationSignature', error);
        }
        if (!data?.publicKey) {
          throw new Error('circle getNotificationSignature answered without the public key');
        }
        return createPublicKey({ key: Buffer.from(data.publicKey, 'base64'), format: 'der', type: 'spki' });
      })();
      keys.set(keyId, key);
      // Only keys that were found stay cached: an unknown id or a failed fetch is asked again next time.
      key.then(
        (found) => (found ? undefined : keys.delete(keyId)),
        () => keys.delete(keyId),
      );
      if (keys.size > keyCacheSize) {
        keys.delete(keys.keys().next().value ?? '');
      }
    }
    return key;
  }

  const handler: ProviderWebhookHandler = {
    provider,
    async receive(request) {
      const keyId = header(request.headers, 'x-circle-key-id');
      const signature = header(request.headers, 'x-circle-signature');
      if (!uuidPattern.test(keyId)) {
        throw invalid('X-Circle-Key-Id', 'must be the id (a UUID) of a Circle notification key');
      }
      if (signature === '') {
        throw invalid('X-Circle-Signature', 'is required');
      }
      const key = await publicKey(keyId);
      if (!key) {
        throw invalid('X-Circle-Key-Id', 'names no Circle notification key');
      }
      if (!verify('sha256', request.rawBody, key, Buffer.from(signature, 'base64'))) {
        throw invalid('X-Circle-Signature', 'does not verify against the body');
      }
      let body: CircleNotification;
      try {
        body = JSON.parse(request.rawBody.toString('utf8')) as CircleNotification;
      } catch {
        throw invalid('body', 'must be JSON');
      }
      if (typeof body.notificationId !== 'string' || body.notificationId.length === 0 || body.notificationId.length > 100) {
        throw invalid('notificationId', 'is required');
      }
      if (deps.subscriptionId && body.subscriptionId !== deps.subscriptionId) {
        throw invalid('subscriptionId', 'is not the configured CIRCLE_WEBHOOK_SUBSCRIPTION_ID');
      }
      const transactionId = body.notification?.id;
      if (typeof body.notificationType !== 'string' || !body.notificationType.startsWith('transactions.') || typeof transactionId !== 'string' || !uuidPattern.test(transactionId)) {
        // Test pings and notifications of other kinds: acknowledged, nothing to do.
        return;
      }
      await recordProviderEvent(database, clock.now(), { provider, eventId: body.notificationId, queue, payload: { transactionId } });
    },
  };

  const job: JobDefinition<{ transactionId: string }> = {
    queue,
    maxAttempts: 20,
    handle: async ({ transactionId }, context) => {
      const transaction = await providerCall('circle', 'getTransaction', async () => (await client.getTransaction({ id: transactionId })).data?.transaction);
      const payoutId = transaction?.refId;
      if (!payoutId) {
        return;
      }
      await context.transaction((tx) => updates.railChanged(tx, clock.now(), payoutId));
    },
  };
  return { handler, job };
}
