import { and, count, desc, eq, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealTable, resealValue, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { lockMerchantRow, type Merchant } from '../merchants/index.ts';
import { secretAssociatedData } from './delivery.ts';
import { normalizeEnabledEvents, validateEndpointUrl } from './rules.ts';
import { generateWebhookSecret } from './signing.ts';
import { maxEndpointsPerMode, type WebhookEndpointCreateInput, type WebhookEndpointUpdateInput, type WebhookEndpointView, type WebhookEndpointWithSecretView } from './schemas.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** How long the previous secret keeps signing after a rotation, unless the request says otherwise. */
export const defaultRotationGraceSeconds = 24 * 60 * 60;

function endpointView(row: EndpointRow): WebhookEndpointView {
  const view: WebhookEndpointView = {
    id: row.id,
    url: row.url,
    enabledEvents: row.enabledEvents,
    livemode: row.livemode,
    status: row.status,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
  if (row.description !== null) {
    view.description = row.description;
  }
  if (row.status === 'DISABLED' && row.disabledReason !== null) {
    view.disabledReason = row.disabledReason;
  }
  if (row.failingSince !== null) {
    view.failingSince = row.failingSince.getTime();
  }
  if (row.previousSecretExpiresAt !== null && row.previousSecretCiphertext !== null) {
    view.previousSecretExpiresAt = row.previousSecretExpiresAt.getTime();
  }
  return view;
}

/** A merchant's endpoints that are not deleted, in `livemode` when given, narrowed by `extra`. */
export function endpointScope(merchantId: string, livemode: boolean | undefined, ...extra: SQL[]): SQL | undefined {
  return and(eq(webhookEndpoints.merchantId, merchantId), isNull(webhookEndpoints.deletedAt), ...(livemode === undefined ? [] : [eq(webhookEndpoints.livemode, livemode)]), ...extra);
}

/**
 * Webhook endpoints (per merchant and mode): create, read, change, delete, secret rotation, and the
 * key-ring re-sealing of their secrets.
 */
export function createEndpointOperations(deps: { database: Database; clock: Clock; keyRing: KeyRing; allowPrivateTargets: boolean }) {
  const { database, clock, keyRing } = deps;

  async function findEndpoint(merchantId: string, livemode: boolean | undefined, endpointId: string): Promise<EndpointRow> {
    const [row] = await database.db.select().from(webhookEndpoints).where(endpointScope(merchantId, livemode, eq(webhookEndpoints.id, endpointId)));
    if (!row) {
      throw notFound('webhook endpoint', endpointId);
    }
    return row;
  }

  return {
    async createEndpoint(merchant: Merchant, livemode: boolean, input: WebhookEndpointCreateInput): Promise<WebhookEndpointWithSecretView> {
      const url = validateEndpointUrl(input.url, { livemode, allowPrivateTargets: deps.allowPrivateTargets });
      const enabledEvents = normalizeEnabledEvents(input.enabledEvents);
      const now = clock.now();
      const id = newId('webhookEndpoint', now.getTime());
      const secret = generateWebhookSecret();
      const row = await database.transaction(async (tx) => {
        // Serialises creates of one merchant so the per-mode limit holds under concurrency.
        await lockMerchantRow(tx, merchant.id);
        const [existing] = await tx.select({ total: count() }).from(webhookEndpoints).where(endpointScope(merchant.id, livemode));
        if ((existing?.total ?? 0) >= maxEndpointsPerMode) {
          throw new AppError('INVALID_STATE', `A merchant can have at most ${maxEndpointsPerMode} webhook endpoints per mode; delete one first`);
        }
        const [inserted] = await tx
          .insert(webhookEndpoints)
          .values({
            id,
            merchantId: merchant.id,
            livemode,
            url,
            description: input.description ?? null,
            enabledEvents,
            status: 'ENABLED',
            secretCiphertext: keyRing.encrypt(secret, secretAssociatedData({ merchantId: merchant.id, id }, 'secret')),
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return inserted;
      });
      if (!row) {
        throw new Error('webhook endpoint insert returned nothing');
      }
      return { ...endpointView(row), secret };
    },

    async listEndpoints(merchant: Merchant, livemode: boolean | undefined): Promise<WebhookEndpointView[]> {
      const rows = await database.db.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode)).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
      return rows.map(endpointView);
    },

    async getEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string): Promise<WebhookEndpointView> {
      return endpointView(await findEndpoint(merchant.id, livemode, endpointId));
    },

    async updateEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string, input: WebhookEndpointUpdateInput): Promise<WebhookEndpointView> {
      const existing = await findEndpoint(merchant.id, livemode, endpointId);
      const now = clock.now();
      const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: now };
      if (input.url !== undefined) {
        changes.url = validateEndpointUrl(input.url, { livemode: existing.livemode, allowPrivateTargets: deps.allowPrivateTargets });
        // Another receiver: the circuit breaker (decision 0027) starts closed again.
        Object.assign(changes, { consecutiveTimeouts: 0, circuitOpenUntil: null });
      }
      if (input.enabledEvents !== undefined) {
        changes.enabledEvents = normalizeEnabledEvents(input.enabledEvents);
      }
      if (input.description !== undefined) {
        changes.description = input.description;
      }
      if (input.status === 'ENABLED' && existing.status === 'DISABLED') {
        Object.assign(changes, { status: 'ENABLED', disabledReason: null, disabledAt: null, failingSince: null, failureWarningSentAt: null, consecutiveTimeouts: 0, circuitOpenUntil: null });
      } else if (input.status === 'DISABLED' && existing.status === 'ENABLED') {
        Object.assign(changes, { status: 'DISABLED', disabledReason: 'MANUAL', disabledAt: now });
      }
      const [row] = await database.db.update(webhookEndpoints).set(changes).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).returning();
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return endpointView(row);
    },

    /** Deleting keeps the row (marked deleted) so past deliveries stay readable; pending ones stop. */
    async deleteEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string): Promise<{ id: string; deleted: true }> {
      const now = clock.now();
      const [row] = await database.db
        .update(webhookEndpoints)
        .set({ deletedAt: now, updatedAt: now })
        .where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId)))
        .returning({ id: webhookEndpoints.id });
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return { id: row.id, deleted: true };
    },

    /**
     * A new secret. For `gracePeriodSeconds` (default 24 h) the previous secret keeps signing too
     * (docs/guides/webhooks.md); rotating again within the grace period drops the oldest secret.
     */
    async rotateSecret(merchant: Merchant, livemode: boolean | undefined, endpointId: string, gracePeriodSeconds: number = defaultRotationGraceSeconds): Promise<WebhookEndpointWithSecretView> {
      const secret = generateWebhookSecret();
      const now = clock.now();
      const row = await database.transaction(async (tx) => {
        const [current] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).for('update');
        if (!current) {
          throw notFound('webhook endpoint', endpointId);
        }
        const previous = gracePeriodSeconds > 0 ? keyRing.decrypt(current.secretCiphertext, secretAssociatedData(current, 'secret')) : null;
        const [updated] = await tx
          .update(webhookEndpoints)
          .set({
            secretCiphertext: keyRing.encrypt(secret, secretAssociatedData(current, 'secret')),
            previousSecretCiphertext: previous === null ? null : keyRing.encrypt(previous, secretAssociatedData(current, 'previous_secret')),
            previousSecretExpiresAt: previous === null ? null : new Date(now.getTime() + gracePeriodSeconds * 1000),
            updatedAt: now,
          })
          .where(eq(webhookEndpoints.id, current.id))
          .returning();
        return updated;
      });
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return { ...endpointView(row), secret };
    },

    /**
     * Key-ring rotation: re-seals every endpoint's signing secret and previous secret (deleted
     * endpoints too: their rows keep the ciphertext) under the active key, with the same associated
     * data. The UPDATE is conditional on the ciphertexts read: a concurrent secret rotation wins.
     * The secrets themselves do not change, so deliveries stay signed as before. `onProgress`: rows examined of all.
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealTable(database, {
        ...options,
        table: webhookEndpoints,
        columns: { id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, secretCiphertext: webhookEndpoints.secretCiphertext, previousSecretCiphertext: webhookEndpoints.previousSecretCiphertext },
        key: 'id',
        reseal: async (row) => {
          const secret = resealValue(keyRing, row.secretCiphertext, secretAssociatedData(row, 'secret'));
          const previous = row.previousSecretCiphertext === null ? null : resealValue(keyRing, row.previousSecretCiphertext, secretAssociatedData(row, 'previous_secret'));
          if (secret === null && previous === null) {
            return false;
          }
          const updated = await database.db
            .update(webhookEndpoints)
            .set({ ...(secret === null ? {} : { secretCiphertext: secret }), ...(previous === null ? {} : { previousSecretCiphertext: previous }) })
            .where(
              and(
                eq(webhookEndpoints.id, row.id),
                ...(secret === null ? [] : [eq(webhookEndpoints.secretCiphertext, row.secretCiphertext)]),
                ...(previous === null || row.previousSecretCiphertext === null ? [] : [eq(webhookEndpoints.previousSecretCiphertext, row.previousSecretCiphertext)]),
              ),
            )
            .returning({ id: webhookEndpoints.id });
          return updated.length > 0;
        },
      });
    },
  };
}
