import { and, eq, sql, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';

/** A payment page as refunds name it: of this merchant, and in `livemode` when given. */
export interface PageTarget {
  merchantId: string;
  livemode: boolean | undefined;
  pageId: string;
}

/**
 * The page of an atomic refund (`refundGateCtes` of payments, decision 0039) as the body of its
 * `page` CTE: `id, status, payment_id` of the target page, no row when there is none. Part of one
 * statement: the refund reads the page, locks its payment and posts without another round trip.
 */
export function refundPageSelect(target: PageTarget): SQL {
  const livemode = target.livemode ?? null;
  return sql`select id, status, payment_id from payment_pages
      where id = ${target.pageId}::text and merchant_id = ${target.merchantId}::text and (${livemode}::boolean is null or livemode = ${livemode}::boolean)`;
}

/**
 * The pages of a batch of refunds (decision 0069) as the body of its `page` CTE: `grp, id, status,
 * payment_id`, one row per target that names a page of its merchant (in its `livemode` when given),
 * `grp` its place in `targets` counted from 1. One statement text whatever the number of targets.
 */
export function refundPagesSelect(targets: readonly PageTarget[]): SQL {
  const rows = JSON.stringify(targets.map((target, index) => ({ grp: index + 1, page_id: target.pageId, merchant_id: target.merchantId, livemode: target.livemode ?? null })));
  return sql`select t.grp, p.id, p.status, p.payment_id
      from json_to_recordset(${rows}::json) as t(grp int, page_id text, merchant_id text, livemode boolean)
      join payment_pages p on p.id = t.page_id and p.merchant_id = t.merchant_id and (t.livemode is null or p.livemode = t.livemode)`;
}

/** The target page's `clientReferenceId` (a refund's events carry it); null when there is no such page. */
export async function pageClientReferenceId(executor: Executor, target: PageTarget): Promise<string | null> {
  const [row] = await executor
    .select({ clientReferenceId: paymentPages.clientReferenceId })
    .from(paymentPages)
    .where(and(eq(paymentPages.id, target.pageId), eq(paymentPages.merchantId, target.merchantId), target.livemode === undefined ? undefined : eq(paymentPages.livemode, target.livemode)))
    // Every settled refund reads it: parsed once per connection (the text depends only on whether `livemode` is given).
    .prepare(target.livemode === undefined ? 'payment_pages_client_reference' : 'payment_pages_client_reference_in_mode')
    .execute();
  return row?.clientReferenceId ?? null;
}

/**
 * The `clientReferenceId` of the page whose id is `pageId` (a column of the caller's query; null
 * for none), as a column of that query: payments shows it beside a fraud candidate in one round trip.
 */
export function clientReferenceIdOfPage(pageId: Column | SQL): SQL<string | null> {
  return sql<string | null>`(select pp.client_reference_id from payment_pages pp where pp.id = ${pageId})`;
}
