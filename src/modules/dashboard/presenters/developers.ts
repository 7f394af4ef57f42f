import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { apiKeys, merchantPiiKeys } from '../../../db/schema/index.ts';
import { createdWithin, everyRow, readPage, type CreatedRange, type PageOf } from './pagination.ts';

export interface ApiKeyRowView {
  id: string;
  name: string;
  last4: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface PiiKeyRowView {
  id: string;
  active: boolean;
  createdAt: Date;
}

/**
 * Read model of the API key and PII key screens, without key material (revealing goes through the
 * merchants service). Both belong to the merchant, not to a mode, so the merchant is the scope.
 */
export function createDevelopersPresenter(deps: { database: Database }) {
  const { database } = deps;

  /** The columns the screen shows: the name and last four characters, never the secret (only its hash is stored). */
  function apiKeyRows(merchantId: string, period: CreatedRange, after: SQL[], limit: number, offset: number): Promise<ApiKeyRowView[]> {
    return database.db
      .select({ id: apiKeys.id, name: apiKeys.name, last4: apiKeys.last4, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.merchantId, merchantId), ...createdWithin(apiKeys.createdAt, period), ...after))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(limit)
      .offset(offset);
  }

  /** The columns the PII key screen shows without Reveal: the id, whether it is active, when it was made. */
  function piiKeyRows(merchantId: string, period: CreatedRange, after: SQL[], limit: number, offset: number): Promise<PiiKeyRowView[]> {
    return database.db
      .select({ id: merchantPiiKeys.id, active: merchantPiiKeys.active, createdAt: merchantPiiKeys.createdAt })
      .from(merchantPiiKeys)
      .where(and(eq(merchantPiiKeys.merchantId, merchantId), ...createdWithin(merchantPiiKeys.createdAt, period), ...after))
      .orderBy(desc(merchantPiiKeys.createdAt), desc(merchantPiiKeys.id))
      .limit(limit)
      .offset(offset);
  }

  return {
    /** Newest first: revoked keys accumulate, so the list is paged like every other. */
    apiKeys(merchantId: string, page: number, period: CreatedRange = {}): Promise<PageOf<ApiKeyRowView>> {
      return readPage(page, (limit, offset) => apiKeyRows(merchantId, period, [], limit, offset));
    },

    /** Every key the period selects, newest first (the CSV export). */
    exportApiKeys(merchantId: string, period: CreatedRange): AsyncGenerator<ApiKeyRowView> {
      return everyRow({ createdAt: apiKeys.createdAt, id: apiKeys.id }, (after, limit) => apiKeyRows(merchantId, period, after, limit, 0));
    },

    piiKeys(merchantId: string, page: number, period: CreatedRange = {}): Promise<PageOf<PiiKeyRowView>> {
      return readPage(page, (limit, offset) => piiKeyRows(merchantId, period, [], limit, offset));
    },

    /** Every PII key the period selects, newest first (the CSV export): ids, status and dates, never key material. */
    exportPiiKeys(merchantId: string, period: CreatedRange): AsyncGenerator<PiiKeyRowView> {
      return everyRow({ createdAt: merchantPiiKeys.createdAt, id: merchantPiiKeys.id }, (after, limit) => piiKeyRows(merchantId, period, after, limit, 0));
    },
  };
}

export type DevelopersPresenter = ReturnType<typeof createDevelopersPresenter>;
