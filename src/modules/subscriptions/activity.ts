import { sql, type SQL } from 'drizzle-orm';

/**
 * True while the customer (`customerId`, SQL) has a subscription not CANCELED, or one changed since
 * `since`: the relationship goes on (retention of KYC details, kyc/retention.ts).
 */
export function subscriptionActivity(customerId: SQL, since: SQL): SQL {
  return sql`exists (select 1 from subscriptions s where s.customer_id = ${customerId} and (s.status <> 'CANCELED' or s.updated_at >= ${since}))`;
}
