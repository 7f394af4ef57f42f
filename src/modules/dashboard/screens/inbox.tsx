import type { Api } from '../../../http/types.ts';
import { setEmailPreviewHeaders } from '../../../web/security.ts';
import { field, notFoundPage, param, screen, type ScreenRequest, type ScreenTools } from '../context.ts';
import { canManageTeam } from '../access.ts';
import { inviteEmailTemplate } from '../team.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import type { InboxPresenter } from '../presenters/inbox.ts';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';
import { InboxMessagePage, InboxPage } from '../pages/inbox.tsx';

/**
 * The inbox CSV: the list's columns, recipient and subject included (personal data: routes limit
 * it to the roles that export customers). Never the bodies, which the list does not show, nor the
 * verification codes, which are one-time secrets and have no place in a file.
 */
export const inboxCsvColumns = ['id', 'createdAt', 'template', 'status', 'to', 'subject', 'relatedId'] as const;

/** A team invitation's link signs up a new member: only those who may invite see it in the inbox. */
function hiddenFrom(view: ScreenRequest): readonly string[] {
  return canManageTeam(view.session) ? [] : [inviteEmailTemplate];
}

/** Where an e-mail's `relatedId` is shown in the dashboard, when it has a screen. */
function relatedPath(mode: 'sandbox' | 'live', relatedId: string | null, sections: readonly string[]): string | null {
  if (!relatedId) {
    return null;
  }
  if (relatedId.startsWith('payout_page_') && sections.includes('payout-pages')) {
    return modePath(mode, `/payout-pages/${relatedId}`);
  }
  if (relatedId.startsWith('page_') && sections.includes('payment-pages')) {
    return modePath(mode, `/payment-pages/${relatedId}`);
  }
  if (relatedId.startsWith('cus_')) {
    return modePath(mode, `/customers/${relatedId}`);
  }
  return null;
}

/**
 * The inbox shows sandbox e-mails always, and live ones only when no SMTP server is configured
 * (with SMTP they leave the platform and the inbox says so).
 */
export function registerInboxScreens(web: Api, tools: ScreenTools, deps: { presenter: InboxPresenter; smtpConfigured: boolean }): void {
  const { presenter } = deps;

  web.get('/:mode/inbox', async (request, reply) => {
    const view = screen(tools, request, reply);
    const hidden = view.livemode && deps.smtpConfigured;
    const period = parseListPeriod(request.query);
    const result = hidden ? null : await presenter.list(view.session.merchant.id, view.livemode, parsePage(field(request.query, 'page', 5)), hiddenFrom(view), period);
    return view.page((frame) => InboxPage({ frame, period, result }));
  });

  // With SMTP, live e-mails are not kept to list: the live CSV is then a header only, like the empty list.
  web.get('/:mode/inbox/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const period = parseListPeriod(request.query);
    const rows = view.livemode && deps.smtpConfigured ? [] : presenter.exportRows(view.session.merchant.id, view.livemode, hiddenFrom(view), period);
    return sendCsv(request, reply, { filename: `inbox-${view.mode}.csv`, columns: inboxCsvColumns, rows });
  });

  web.get('/:mode/inbox/:emailId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const email = view.livemode && deps.smtpConfigured ? null : await presenter.message(view.session.merchant.id, view.livemode, param(request, 'emailId'), hiddenFrom(view));
    if (!email) {
      throw notFoundPage('e-mail');
    }
    return view.page((frame) => InboxMessagePage({ frame, email, relatedPath: relatedPath(view.mode, email.relatedId, tools.sections), htmlPath: modePath(view.mode, `/inbox/${email.id}/html`) }), { sources: { frame: ["'self'"] } });
  });

  // The HTML part alone, for the message page's sandboxed frame (no script, no network).
  web.get('/:mode/inbox/:emailId/html', async (request, reply) => {
    const view = screen(tools, request, reply);
    const email = view.livemode && deps.smtpConfigured ? null : await presenter.message(view.session.merchant.id, view.livemode, param(request, 'emailId'), hiddenFrom(view));
    if (!email) {
      throw notFoundPage('e-mail');
    }
    setEmailPreviewHeaders(reply);
    return reply.type('text/html; charset=utf-8').send(email.html);
  });
}
