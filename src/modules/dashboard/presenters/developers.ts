import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { apiKeys, merchantPiiKeys } from '../../../db/schema/index.ts';
import { readPage, type PageOf } from './pagination.ts';

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
  return {
    /** Newest first: revoked keys accumulate, so the list is paged like every other. */
    apiKeys(merchantId: string, page: number): Promise<PageOf<ApiKeyRowView>> {
      return readPage(page, (limit, offset) =>
        database.db
          .select({ id: apiKeys.id, name: apiKeys.name, last4: apiKeys.last4, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt })
          .from(apiKeys)
          .where(eq(apiKeys.merchantId, merchantId))
          .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
          .limit(limit)
          .offset(offset),
      );
    },

    piiKeys(merchantId: string, page: number): Promise<PageOf<PiiKeyRowView>> {
      return readPage(page, (limit, offset) =>
        database.db
          .select({ id: merchantPiiKeys.id, active: merchantPiiKeys.active, createdAt: merchantPiiKeys.createdAt })
          .from(merchantPiiKeys)
          .where(eq(merchantPiiKeys.merchantId, merchantId))
          .orderBy(desc(merchantPiiKeys.createdAt), desc(merchantPiiKeys.id))
          .limit(limit)
          .offset(offset),
      );
    },
  };
}

export type DevelopersPresenter = ReturnType<typeof createDevelopersPresenter>;
