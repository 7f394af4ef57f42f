import type { Api } from '../../http/types.ts';
import { Envelope, errorResponses, succeeded } from '../../http/schemas.ts';
import { AuditEventList, AuditEventListQuery, type AuditEventJson } from './schemas.ts';
import type { AuditEventView, AuditLog } from './service.ts';

export function auditEventJson(event: AuditEventView): AuditEventJson {
  return { ...event, createdAt: event.createdAt.getTime() };
}

/** `GET /admin/v1/audit_events`: the operator's view of the audit log (docs/guides/audit-log.md). */
export function registerAuditAdminRoutes(admin: Api, audit: AuditLog): void {
  admin.get(
    '/audit_events',
    {
      schema: {
        tags: ['Admin'],
        security: [{ adminBearer: [] }],
        operationId: 'adminAuditEvents_list',
        summary: 'List audit events',
        description:
          'Every state-changing action of an API key, a dashboard user or the operator, and the reads that reveal secrets (PII keys, customer exports), newest first: who (actorType, actorId), when, from which address, on what (target) and how it ended (outcome, statusCode, errorCode). ' +
          'Append-only. Filter by `merchantId`, `actorType`, `action`, `livemode` and `createdFrom`/`createdTo`; page with `limit` and `startingAfter`.',
        querystring: AuditEventListQuery,
        response: { 200: Envelope(AuditEventList), ...errorResponses() },
      },
    },
    async (request) => {
      const page = await audit.listAll(request.query);
      return succeeded({ auditEvents: page.items.map(auditEventJson), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    },
  );
}
