/**
 * Retention settings and the hourly purge, which asks each owning module to purge its own rows.
 * Other modules and the app use it through this file only.
 */
export { registerRetentionAdminRoutes } from './routes.ts';
export { createRetentionService, type RetentionService, scheduleRetention } from './service.ts';
