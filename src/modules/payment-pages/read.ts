import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import { notFound } from '../../http/errors.ts';
import { customerReferenceIdOf } from '../customers/index.ts';
import type { PaymentsService } from '../payments/index.ts';
import type { PageView } from './view.ts';

/** A page by id, scoped to its merchant and to `livemode` when given. */
export function pageScope(merchantId: string | undefined, livemode: boolean | undefined, pageId: string): SQL {
  const conditions: SQL[] = [eq(paymentPages.id, pageId)];
  if (merchantId !== undefined) {
    conditions.push(eq(paymentPages.merchantId, merchantId));
  }
  if (livemode !== undefined) {
    conditions.push(eq(paymentPages.livemode, livemode));
  }
  return and(...conditions) as SQL;
}

export interface PageTarget {
  pageId: string;
  merchantId?: string | undefined;
  livemode?: boolean | undefined;
}

/** Reading one page as responses show it: with its customer's reference and its successful payment. */
export function createPageReads(deps: { database: Database; payments: Pick<PaymentsService, 'find'> }) {
  const { database, payments } = deps;

  /**
   * The page with its customer reference: one prepared statement (every read by id goes through
   * it, so PostgreSQL parses and plans it once per connection). A paid page's payment is read from
   * the payments module.
   */
  const pageViewStatement = database.db
    .select({ page: paymentPages, customerReferenceId: customerReferenceIdOf(paymentPages.customerId) })
    .from(paymentPages)
    .where(
      and(
        eq(paymentPages.id, sql.placeholder('pageId')),
        sql`(${sql.placeholder('merchantId')}::text is null or ${paymentPages.merchantId} = ${sql.placeholder('merchantId')}::text)`,
        sql`(${sql.placeholder('livemode')}::boolean is null or ${paymentPages.livemode} = ${sql.placeholder('livemode')}::boolean)`,
      ),
    )
    .prepare('payment_pages_view_by_id');

  async function loadView(target: PageTarget): Promise<PageView | null> {
    const [row] = await pageViewStatement.execute({ pageId: target.pageId, merchantId: target.merchantId ?? null, livemode: target.livemode ?? null });
    if (!row) {
      return null;
    }
    return { ...row, payment: row.page.paymentId === null ? null : await payments.find(database.db, row.page.paymentId) };
  }

  async function requireView(target: PageTarget): Promise<PageView> {
    const view = await loadView(target);
    if (!view) {
      throw notFound('payment page', target.pageId);
    }
    return view;
  }

  return { loadView, requireView };
}
