import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { merchantPiiKeys } from '../../../db/schema/index.ts';

/** Read model of the PII key screen without key material (revealing goes through the merchants service). */
export function createDevelopersPresenter(deps: { database: Database }) {
  return {
    async piiKeys(merchantId: string): Promise<Array<{ id: string; active: boolean; createdAt: Date }>> {
      return deps.database.db
        .select({ id: merchantPiiKeys.id, active: merchantPiiKeys.active, createdAt: merchantPiiKeys.createdAt })
        .from(merchantPiiKeys)
        .where(eq(merchantPiiKeys.merchantId, merchantId))
        .orderBy(desc(merchantPiiKeys.createdAt), desc(merchantPiiKeys.id));
    },
  };
}

export type DevelopersPresenter = ReturnType<typeof createDevelopersPresenter>;
