import type { FastifyReply, FastifyRequest } from 'fastify';
import { targetOf, type AuditRecorder } from '../../http/audit.ts';
import { dashboardPrefix } from './paths.ts';
import { isConfirmationStep } from './screens/confirm.ts';

/**
 * The audit action of each dashboard form, named like the API operation that does the same (so one
 * filter finds a release whether it came from the API or the dashboard); the dashboard's own actions
 * are named in the same `<resource>_<verb>` shape. A form missing here is recorded under its address
 * (`dashboard:/:mode/…`), and test/http/audit/screen.happy.test.ts fails until it is named.
 */
export const dashboardAuditActions: Readonly<Record<string, string>> = {
  '/:mode/payout-pages': 'payoutPages_create',
  '/:mode/payment-pages': 'paymentPages_create',
  '/:mode/payout-pages/:payoutPageId/release': 'payoutPages_release',
  '/:mode/payout-pages/:payoutPageId/reissue': 'payoutPages_reissue',
  '/:mode/payout-pages/:payoutPageId/cancel': 'payoutPages_cancel',
  '/:mode/customers/:customerId/kyc-review': 'customers_decideKycReview',
  '/:mode/customers/:customerId/erase': 'customers_erase',
  '/:mode/account/password': 'dashboardUsers_changePassword',
  '/:mode/account/security/two-factor': 'dashboardUsers_enableTwoFactor',
  '/:mode/account/security/two-factor/disable': 'dashboardUsers_disableTwoFactor',
  '/:mode/account/security/recovery-codes': 'dashboardUsers_regenerateRecoveryCodes',
  '/:mode/account/security/require': 'merchants_requireTwoFactor',
  '/:mode/account/security/sessions/:sessionId/revoke': 'dashboardSessions_revoke',
  '/:mode/account/security/sessions/revoke-others': 'dashboardSessions_revokeOthers',
  '/:mode/developers/webhooks': 'webhookEndpoints_create',
  '/:mode/developers/webhooks/:endpointId/test': 'webhookEndpoints_sendTestEvent',
  '/:mode/developers/webhooks/:endpointId/reveal': 'webhookEndpoints_revealSecret',
  '/:mode/developers/webhooks/:endpointId/rotate': 'webhookEndpoints_rotateSecret',
  '/:mode/developers/webhooks/:endpointId/status': 'webhookEndpoints_update',
  '/:mode/developers/webhooks/:endpointId/events': 'webhookEndpoints_update',
  '/:mode/developers/webhooks/:endpointId/delete': 'webhookEndpoints_delete',
  '/:mode/developers/events/:eventId/redeliver': 'events_redeliver',
  '/:mode/developers/api-keys': 'apiKeys_create',
  '/:mode/developers/api-keys/:keyId/revoke': 'apiKeys_revoke',
  '/:mode/developers/pii-key/reveal': 'piiKeys_reveal',
  '/:mode/developers/pii-key/rotate': 'piiKeys_rotate',
  '/:mode/subscriptions/:subscriptionId/cancel': 'subscriptions_cancel',
  '/:mode/subscriptions/:subscriptionId/renew': 'subscriptions_renew',
  '/:mode/payment-pages/:pageId/expire': 'paymentPages_expire',
  '/:mode/payment-pages/:pageId/refund': 'refunds_create',
  '/:mode/settings/branding': 'branding_update',
  '/:mode/team/invites': 'dashboardInvites_create',
  '/:mode/team/invites/:inviteId/resend': 'dashboardInvites_resend',
  '/:mode/team/invites/:inviteId/revoke': 'dashboardInvites_revoke',
  '/:mode/team/members/:userId/role': 'dashboardUsers_changeRole',
  '/:mode/team/members/:userId/remove': 'dashboardUsers_remove',
  // Outside the signed-in scope: recorded by the accept page's own hook, with the new member as the actor.
  '/invites/:token': 'dashboardInvites_accept',
};

/**
 * Forms that switch something on or off by one field, recorded as two actions so that the row says
 * which (requiring two-factor sign-in of the whole team: `required=on|off`). Any other value keeps the
 * route's action (a refused bad value is recorded as FAILED under it).
 */
const switchActions: Readonly<Record<string, { field: string; actions: Readonly<Record<string, string>> }>> = {
  '/:mode/account/security/require': { field: 'required', actions: { on: 'merchants_requireTwoFactor', off: 'merchants_stopRequiringTwoFactor' } },
};

function actionOf(path: string, body: unknown): string {
  const switched = switchActions[path];
  const value = switched ? (body as Record<string, unknown> | undefined)?.[switched.field] : undefined;
  const action = switched && typeof value === 'string' ? switched.actions[value] : undefined;
  return action ?? dashboardAuditActions[path] ?? `dashboard:${path}`;
}

/** The route's address inside the dashboard (`/:mode/…`). */
export function dashboardRoutePath(request: FastifyRequest): string {
  const url = request.routeOptions.url ?? '';
  return url.startsWith(dashboardPrefix) ? url.slice(dashboardPrefix.length) : url;
}

/**
 * The signed-in scope's `onSend` hook: every form a signed-in user posts becomes one audit row (but
 * the confirmation step of an irreversible action, which attempts nothing: `confirmFirst`). A
 * form answers with a redirect (303) either way; one whose address carries `error=` (an expected
 * refusal shown as a notice, `runAction`) or an error page (4xx/5xx) is a FAILED action.
 */
export function createDashboardAuditHook(audit: AuditRecorder) {
  return function dashboardAuditOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
    const session = request.dashboardSession;
    if (session && request.method === 'POST' && request.routeOptions.url !== undefined && !isConfirmationStep(request)) {
      const path = dashboardRoutePath(request);
      const location = reply.getHeader('location');
      const refused = typeof location === 'string' ? /[?&]error=([A-Za-z_-]{1,40})/.exec(location)?.[1] : undefined;
      const failed = reply.statusCode >= 400 || refused !== undefined;
      const mode = (request.params as Record<string, unknown> | undefined)?.mode;
      audit.record({
        merchantId: session.merchant.id,
        livemode: mode === 'live' ? true : mode === 'sandbox' ? false : null,
        actorType: 'dashboard_user',
        actorId: session.userId,
        action: actionOf(path, request.body),
        target: targetOf(request.params),
        address: request.ip,
        outcome: failed ? 'FAILED' : 'SUCCEEDED',
        statusCode: reply.statusCode,
        errorCode: refused ?? null,
        requestId: String(request.id),
      });
    }
    done(null, payload);
  };
}
