import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import { errorNotices, field, noticeOf, param, screen, type ScreenRequest, type ScreenTools } from '../context.ts';
import { dashboardPrefix, modePath, withQuery } from '../paths.ts';
import type { TeamActor, TeamService } from '../team.ts';
import { TeamPage } from '../pages/team.tsx';
import { removeMemberConfirmation, revokeInviteConfirmation } from '../pages/confirmations.tsx';
import { confirmFirst } from './confirm.ts';
import type { Confirmation } from '../pages/confirm-dialog.tsx';
import { sendCsv } from '../csv.ts';
import { anyTime, parseListPeriod } from '../date-range.ts';

/** The members CSV: what the Members table shows (e-mail, role, last sign-in, joined). */
export const memberCsvColumns = ['id', 'email', 'role', 'lastSignInAt', 'createdAt'] as const;
/** The invitations CSV: what the Invitations table shows; never the link's token (only its hash is stored). */
export const inviteCsvColumns = ['id', 'email', 'role', 'status', 'expiresAt', 'createdAt'] as const;

function actorOf(view: ScreenRequest): TeamActor {
  return { userId: view.session.userId, role: view.session.role, merchant: { id: view.session.merchant.id, name: view.session.merchant.name } };
}

/**
 * The Team screen (issue 18 item 11): members, roles and invitations. Who may post these forms is
 * the matrix of access.ts (owners and admins); the owner rules and the last owner are the team
 * service's. A refusal of an expected kind (the last owner) comes back as a notice; FORBIDDEN (an
 * admin touching an owner) is the 403 error page, and nothing changes either way.
 */
export function registerTeamScreens(web: Api, tools: ScreenTools, deps: { team: TeamService }): void {
  const { team } = deps;

  async function teamPage(view: ScreenRequest, request: FastifyRequest, extra: { invite?: { email: string; role: string; error: string }; error?: string; status?: number } = {}) {
    // A form's answer shows the whole team; the screen itself the period of its query.
    const period = request.method === 'GET' ? parseListPeriod(request.query) : anyTime;
    const [members, invites, ownerCount] = await Promise.all([team.listMembers(view.session.merchant.id, period), team.listInvites(view.session.merchant.id, period), team.countOwners(view.session.merchant.id)]);
    const notices = extra.invite || extra.error ? { notice: undefined, error: extra.error } : noticeOf(request);
    const actor = { userId: view.session.userId, role: view.session.role };
    return view.page((frame) => TeamPage({ frame, actor, members, invites, period, ownerCount, ...notices, ...(extra.invite ? { invite: extra.invite } : {}) }), extra.status ? { status: extra.status } : {});
  }

  /** Runs a team action and redirects back with its notice; INVALID_STATE (the last owner, a changed invitation) becomes an error notice. */
  async function act(reply: FastifyReply, view: ScreenRequest, notice: string, action: () => Promise<unknown>, done?: string): Promise<FastifyReply> {
    const back = modePath(view.mode, '/team');
    try {
      await action();
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_STATE') {
        const key = typeof error.extra['notice'] === 'string' && error.extra['notice'] in errorNotices ? error.extra['notice'] : error.code;
        return reply.redirect(withQuery(back, { error: key }), 303);
      }
      throw error;
    }
    return reply.redirect(done ?? withQuery(back, { notice }), 303);
  }

  /** The confirmation step of a removal or a revocation (decision 0030): true when the page was sent. */
  function askFirst(view: ScreenRequest, request: FastifyRequest, confirmation: () => Promise<Confirmation>): Promise<boolean> {
    return confirmFirst(view, request, { section: 'team', back: modePath(view.mode, '/team'), confirmation });
  }

  web.get('/:mode/team', async (request, reply) => {
    const view = screen(tools, request, reply);
    return teamPage(view, request);
  });

  // The two lists as the screen shows them (a team is small: one read each, in the screen's order), the period applied.
  web.get('/:mode/team/members/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await team.listMembers(view.session.merchant.id, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: 'team-members.csv', columns: memberCsvColumns, rows });
  });

  web.get('/:mode/team/invites/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await team.listInvites(view.session.merchant.id, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: 'team-invitations.csv', columns: inviteCsvColumns, rows });
  });

  web.post('/:mode/team/invites', async (request, reply) => {
    const view = screen(tools, request, reply);
    const email = field(request.body, 'email', 300);
    const role = field(request.body, 'role', 40);
    try {
      await team.invite(actorOf(view), { email, role });
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return teamPage(view, request, { invite: { email, role, error: `${error.message}.` }, status: 400 });
      }
      throw error;
    }
    return reply.redirect(withQuery(modePath(view.mode, '/team'), { notice: 'member-invited' }), 303);
  });

  web.post('/:mode/team/invites/:inviteId/resend', async (request, reply) => {
    const view = screen(tools, request, reply);
    return act(reply, view, 'invite-resent', () => team.resendInvite(actorOf(view), param(request, 'inviteId')));
  });

  web.post('/:mode/team/invites/:inviteId/revoke', async (request, reply) => {
    const view = screen(tools, request, reply);
    const inviteId = param(request, 'inviteId');
    if (await askFirst(view, request, async () => revokeInviteConfirmation(await team.findInvite(view.session.merchant.id, inviteId)))) {
      return reply;
    }
    return act(reply, view, 'invite-revoked', () => team.revokeInvite(actorOf(view), inviteId));
  });

  web.post('/:mode/team/members/:userId/role', async (request, reply) => {
    const view = screen(tools, request, reply);
    const role = field(request.body, 'role', 40);
    try {
      return await act(reply, view, 'role-changed', () => team.changeRole(actorOf(view), param(request, 'userId'), role));
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        return teamPage(view, request, { error: `${error.message}.`, status: 400 });
      }
      throw error;
    }
  });

  web.post('/:mode/team/members/:userId/remove', async (request, reply) => {
    const view = screen(tools, request, reply);
    const userId = param(request, 'userId');
    if (await askFirst(view, request, async () => removeMemberConfirmation(await team.findMember(view.session.merchant.id, userId)))) {
      return reply;
    }
    // Removing yourself ends this session too: the next page is the sign-in page.
    const done = userId === view.session.userId ? withQuery(`${dashboardPrefix}/sign-in`, { signed_out: 1 }) : undefined;
    return act(reply, view, 'member-removed', () => team.removeMember(actorOf(view), userId), done);
  });
}
