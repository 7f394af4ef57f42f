import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The operator's retention overrides (`POST /admin/v1/retention`), one row per category
 * (`kycDetails`, `emailBodies`, `webhookDeliveryLogs`, `idempotencyRecords`), in the category's unit
 * (days, or hours for idempotency records). A category without a row uses its environment default
 * (`RETENTION_*`, src/config/retention.ts). Owned by the retention module.
 */
export const retentionSettings = pgTable('retention_settings', {
  category: text('category').primaryKey(),
  value: integer('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
