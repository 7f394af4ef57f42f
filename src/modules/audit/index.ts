/**
 * The audit log (issue 18 item 13, decision 0028): who did what, when, from where, on what, and how
 * it ended. Recorded by the HTTP layer's hooks (src/http/audit.ts, the dashboard's), read by the
 * operator (`GET /admin/v1/audit_events`) and the dashboard. Other modules use it through this file.
 */
export { createAuditLog, type AuditLog, type AuditEventView, type AuditFilters, type AuditPageInput } from './service.ts';
export { registerAuditAdminRoutes, auditEventJson } from './routes.ts';
export { AuditEventSchema } from './schemas.ts';
