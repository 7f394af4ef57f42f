import type { Api } from '../../http/types.ts';
import { errorResponses } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { EntitlementsPage, EntitlementsQuery } from './schemas.ts';
import type { EntitlementsService } from './service.ts';

export function registerEntitlementRoutes(api: Api, entitlements: EntitlementsService): void {
  api.get(
    '/entitlements',
    {
      schema: {
        tags: ['Entitlements'],
        operationId: 'entitlements_list',
        summary: 'List entitlements',
        description:
          'One entitlement per paid subscription period. **The success body has no envelope**: `entitlements`, `hasMore`, and `nextPageToken` ' +
          'only when `hasMore` is true. Ordered by creation time, then id. `nextPageToken` continues the same query only (same filters, sort ' +
          'and mode); anything else answers 400 WRONG_PARAMETER. Errors use the standard error envelope.',
        querystring: EntitlementsQuery,
        response: { 200: EntitlementsPage, ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return entitlements.listEntitlements(merchant.id, modeFilter(merchant, request.query.livemode), request.query);
    },
  );
}
