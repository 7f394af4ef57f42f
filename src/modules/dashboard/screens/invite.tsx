import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import type { AuditRecorder } from '../../../http/audit.ts';
import type { RateLimiter } from '../../../http/rate-limit.ts';
import { AppError } from '../../../http/errors.ts';
import type { Csrf } from '../../../web/security.ts';
import type { WebTools } from '../../../web/scope.ts';
import { field, param, sessionCookieName } from '../context.ts';
import { dashboardPrefix } from '../paths.ts';
import { dashboardAuditActions } from '../audit.ts';
import type { InviteLookup, TeamService } from '../team.ts';
import { AcceptInvitePage } from '../pages/invite.tsx';

const inviteCsrfScope = 'dashboard:invite';
const acceptPath = '/invites/:token';

/** Invitations accepted by a request, for the audit hook (the new member is the actor). */
const accepted = new WeakMap<FastifyRequest, { userId: string; merchantId: string }>();

/**
 * The accept-invitation page (outside the signed-in scope: the invitee has no login yet). The token
 * is the link's secret; a POST chooses the password (the rules of a password change) and answers
 * with the new session's cookie and a redirect into the dashboard. Attempts share the sign-in
 * budget per client address.
 */
export async function registerInviteRoutes(
  web: Api,
  deps: { team: TeamService; csrf: Csrf; render: WebTools['render']; secureCookies: boolean; audit: AuditRecorder; limiter: RateLimiter },
): Promise<void> {
  const { team, csrf, render } = deps;

  await web.register(async (scope) => {
    scope.addHook('onSend', (request, reply, payload, done) => {
      const member = accepted.get(request);
      if (member) {
        deps.audit.record({
          merchantId: member.merchantId,
          livemode: null,
          actorType: 'dashboard_user',
          actorId: member.userId,
          action: dashboardAuditActions[acceptPath] ?? 'dashboardInvites_accept',
          target: member.userId,
          address: request.ip,
          outcome: 'SUCCEEDED',
          statusCode: reply.statusCode,
          errorCode: null,
          requestId: String(request.id),
        });
      }
      done(null, payload);
    });

    function page(request: FastifyRequest, reply: FastifyReply, invite: InviteLookup, state: { error?: string; status?: number } = {}) {
      const csrfToken = csrf.issue(request, reply, inviteCsrfScope);
      const status = state.status ?? (invite.state === 'open' ? 200 : 404);
      reply.header('referrer-policy', 'no-referrer');
      return render(reply, (nonce) => AcceptInvitePage({ nonce, csrfToken, action: `${dashboardPrefix}/invites/${param(request, 'token')}`, invite, ...(state.error ? { error: state.error } : {}) }), { status });
    }

    scope.get(acceptPath, async (request, reply) => {
      return page(request, reply, await team.lookupInvite(param(request, 'token')));
    });

    scope.post(acceptPath, async (request, reply) => {
      const token = param(request, 'token');
      const invite = await team.lookupInvite(token);
      if (invite.state !== 'open') {
        return page(request, reply, invite);
      }
      if (!csrf.verify(request, inviteCsrfScope, field(request.body, '_csrf', 200))) {
        return page(request, reply, invite, { status: 403, error: 'This form expired. Choose your password again.' });
      }
      const wait = await deps.limiter.take(`dashboard-invite-address:${request.ip}`);
      if (wait > 0) {
        reply.header('Retry-After', String(wait));
        return page(request, reply, invite, { status: 429, error: `Too many attempts. Wait ${wait} seconds, then try again.` });
      }
      let signedIn: Awaited<ReturnType<TeamService['acceptInvite']>>;
      try {
        signedIn = await team.acceptInvite(token, { password: field(request.body, 'newPassword', 1024), confirmation: field(request.body, 'confirmation', 1024) });
      } catch (error) {
        if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
          return page(request, reply, invite, { status: 400, error: `${error.message}.` });
        }
        if (error instanceof AppError && error.code === 'NOT_FOUND') {
          return page(request, reply, await team.lookupInvite(token));
        }
        throw error;
      }
      accepted.set(request, { userId: signedIn.userId, merchantId: signedIn.merchantId });
      reply.setCookie(sessionCookieName, signedIn.token, { httpOnly: true, sameSite: 'strict', path: dashboardPrefix, secure: deps.secureCookies, expires: signedIn.expiresAt });
      return reply.redirect(dashboardPrefix, 303);
    });
    // The link's token is in the address: these routes log warnings and errors only, never the
    // request lines that would carry it.
  }, { logLevel: 'warn' });
}
