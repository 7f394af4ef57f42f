import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditEvents, dashboardInvites, dashboardUsers } from '../../../src/db/schema/index.ts';
import { inviteLifetimeMs } from '../../../src/modules/dashboard/team.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { DashboardClient, signedInClient, textOf } from './client.ts';
import { addMember, invitePathIn, latestInvitePath, memberEmail, memberPassword, navigationOf, postInvite } from './team-helpers.ts';

/**
 * Team invitations end to end (issue 18 item 11): the Team screen's form, the e-mail through a real
 * SMTP server and the sandbox inbox, the accept page (password rules, signed in at once), single
 * use, expiry after 7 days, resend and revoke, refusals that write nothing, and the audit log.
 */
describe('dashboard team: invitations', () => {
  let smtp: SmtpSink;
  let context: TestContext;
  let merchant: TestMerchant;
  let owner: DashboardClient;

  before(async () => {
    smtp = await startSmtpSink();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    merchant = await context.createMerchant({ name: 'Crew Sails' });
    owner = await signedInClient(context, merchant);
  });
  after(async () => {
    await context.close();
    await smtp.close();
  });

  async function invitesOf(email: string) {
    return context.database.db
      .select()
      .from(dashboardInvites)
      .where(and(eq(dashboardInvites.merchantId, merchant.id), eq(dashboardInvites.email, email)));
  }

  test('invite → e-mail over SMTP → accept page → signed in with the role; the link works once', async () => {
    const email = memberEmail('dev');
    const invited = await postInvite(owner, email, 'developer');
    assert.equal(invited.statusCode, 303);
    assert.equal(invited.headers.location, '/dashboard/sandbox/team?notice=member-invited');
    const listed = textOf((await owner.get('/dashboard/sandbox/team?notice=member-invited')).body);
    assert.match(listed, /The invitation was e-mailed\. The link works once, for 7 days\./);
    assert.match(listed, new RegExp(`${email} Developer Invited`));

    await context.drainJobs();
    const mail = smtp.received.find((message) => JSON.stringify(message.to).includes(email));
    assert.ok(mail, 'the invitation left through SMTP');
    assert.equal(mail.subject, 'You are invited to Crew Sails on Paysail');
    const path = invitePathIn(mail.text ?? '');
    assert.equal(path, await latestInvitePath(context, merchant.id, email), 'the same link as stored (and shown in the sandbox inbox)');
    assert.match(mail.html || '', /Accept the invitation/);
    const [stored] = await invitesOf(email);
    assert.ok(stored);
    assert.notEqual(stored.tokenHash, path.split('/').pop(), 'only the hash of the token is stored');
    assert.equal(stored.expiresAt.getTime() - stored.createdAt.getTime(), inviteLifetimeMs);

    const invitee = new DashboardClient(context);
    const page = await invitee.get(path);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(textOf(page.body), /Join Crew Sails on Paysail You were invited as Developer ?: API keys, webhooks, events and the PII key; reads the rest\./);

    for (const [fields, says] of [
      [{ newPassword: 'too short', confirmation: 'too short' }, /The password must be between 12 and 256 characters/],
      [{ newPassword: memberPassword, confirmation: 'something else entirely' }, /The repeated password must be the same as the password/],
    ] as const) {
      const refused = await invitee.post(path, fields);
      assert.equal(refused.statusCode, 400);
      assert.match(textOf(refused.body), says);
    }
    assert.equal((await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, email))).length, 0, 'refused: nobody was created');

    const accepted = await invitee.post(path, { newPassword: memberPassword, confirmation: memberPassword });
    assert.equal(accepted.statusCode, 303);
    assert.equal(accepted.headers.location, '/dashboard');
    const home = await invitee.get('/dashboard/sandbox');
    assert.equal(home.statusCode, 200, 'signed in at once');
    assert.ok(!navigationOf(home.body).includes('/dashboard/sandbox/team'), 'a developer does not see Team');
    assert.match(textOf(home.body), new RegExp(email));

    // Single use: the same link again is refused and creates nobody.
    const again = new DashboardClient(context);
    const reused = await again.get(path);
    assert.equal(reused.statusCode, 404);
    assert.match(textOf(reused.body), /already used or was revoked/);
    const repost = await again.post(path, { newPassword: memberPassword, confirmation: memberPassword }, { csrf: null });
    assert.equal(repost.statusCode, 404);
    assert.equal((await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, email))).length, 1);
    // The member signs in with the chosen password like anyone else.
    const later = new DashboardClient(context);
    await later.signIn({ email, password: memberPassword });
    assert.equal((await later.get('/dashboard/sandbox/developers/api-keys')).statusCode, 200);
  });

  test('an invitation expires after 7 days; resending gives a new link and the old one stops working', async () => {
    const email = memberEmail('late');
    assert.equal((await postInvite(owner, email, 'viewer')).statusCode, 303);
    const first = await latestInvitePath(context, merchant.id, email);
    context.clock.advance(inviteLifetimeMs);
    // A session lasts 12 hours: the owner signs in again a week later.
    owner = await signedInClient(context, merchant);
    const invitee = new DashboardClient(context);
    const expired = await invitee.get(first);
    assert.equal(expired.statusCode, 404);
    assert.match(textOf(expired.body), /This invitation has expired: links work for 7 days\. Ask an owner or administrator of Crew Sails/);
    assert.equal((await invitee.post(first, { newPassword: memberPassword, confirmation: memberPassword }, { csrf: null })).statusCode, 404);
    assert.match(textOf((await owner.get('/dashboard/sandbox/team')).body), new RegExp(`${email} Viewer Expired`));

    const [invite] = await invitesOf(email);
    assert.ok(invite);
    await owner.get('/dashboard/sandbox/team');
    const resent = await owner.post(`/dashboard/sandbox/team/invites/${invite.id}/resend`);
    assert.equal(resent.headers.location, '/dashboard/sandbox/team?notice=invite-resent');
    const second = await latestInvitePath(context, merchant.id, email);
    assert.notEqual(second, first);
    assert.equal((await new DashboardClient(context).get(first)).statusCode, 404, 'the earlier link no longer works');
    const fresh = new DashboardClient(context);
    assert.equal((await fresh.get(second)).statusCode, 200);
    assert.equal((await fresh.post(second, { newPassword: memberPassword, confirmation: memberPassword })).statusCode, 303);
  });

  test('revoking asks first (the confirmation page), then the link stops working', async () => {
    const email = memberEmail('revoked');
    assert.equal((await postInvite(owner, email, 'support')).statusCode, 303);
    const path = await latestInvitePath(context, merchant.id, email);
    const [invite] = await invitesOf(email);
    assert.ok(invite);
    await owner.get('/dashboard/sandbox/team');
    const asked = await owner.post(`/dashboard/sandbox/team/invites/${invite.id}/revoke`);
    assert.equal(asked.statusCode, 200);
    assert.match(textOf(asked.body), new RegExp(`Revoke the invitation of ${email}\\? The link e-mailed to ${email} stops working at once\\.`));
    assert.equal((await new DashboardClient(context).get(path)).statusCode, 200, 'asking changed nothing');
    const revoked = await owner.post(`/dashboard/sandbox/team/invites/${invite.id}/revoke`, { confirmed: '1' });
    assert.equal(revoked.headers.location, '/dashboard/sandbox/team?notice=invite-revoked');
    assert.equal((await new DashboardClient(context).get(path)).statusCode, 404);
    assert.doesNotMatch(textOf((await owner.get('/dashboard/sandbox/team')).body), new RegExp(email));
  });

  test('refusals name the field and write nothing: bad e-mail, unknown role, a member, another account’s login, an open invitation', async () => {
    const other = await context.createMerchant({ name: 'Elsewhere' });
    const open = memberEmail('open');
    assert.equal((await postInvite(owner, open, 'viewer')).statusCode, 303);
    const before = (await context.database.db.select().from(dashboardInvites)).length;
    for (const [email, role, says] of [
      ['not-an-address', 'viewer', /email must be an e-mail address/],
      [memberEmail('x'), 'superuser', /role must be one of owner, admin, developer, support, viewer/],
      [merchant.dashboardUser.email, 'viewer', /email is already a member of your team/],
      [other.dashboardUser.email, 'viewer', /email already has a Paysail dashboard login/],
      [open, 'admin', /email already has an open invitation: resend it/],
    ] as const) {
      const refused = await postInvite(owner, email, role);
      assert.equal(refused.statusCode, 400, email);
      assert.match(textOf(refused.body), says);
      assert.match(refused.body, /aria-invalid="true"/);
    }
    assert.equal((await context.database.db.select().from(dashboardInvites)).length, before, 'no invitation was written');
  });

  test('the sandbox inbox shows invitations to owners and admins only; the audit log names each step', async () => {
    const inbox = textOf((await owner.get('/dashboard/sandbox/inbox')).body);
    assert.match(inbox, /You are invited to Crew Sails on Paysail/);
    const viewer = await addMember(context, owner, merchant.id, 'viewer');
    assert.doesNotMatch(textOf((await viewer.client.get('/dashboard/sandbox/inbox')).body), /You are invited/);

    await context.platform.services.audit.flush();
    const actions = (await context.database.db.select().from(auditEvents).where(eq(auditEvents.merchantId, merchant.id))).map((row) => `${row.action}:${row.outcome}`);
    for (const expected of ['dashboardInvites_create:SUCCEEDED', 'dashboardInvites_create:FAILED', 'dashboardInvites_accept:SUCCEEDED', 'dashboardInvites_resend:SUCCEEDED', 'dashboardInvites_revoke:SUCCEEDED']) {
      assert.ok(actions.includes(expected), `${expected} in ${actions.join(', ')}`);
    }
    const [acceptedRow] = await context.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'dashboardInvites_accept'), eq(auditEvents.actorId, viewer.userId)));
    assert.ok(acceptedRow, 'the new member is the actor of their acceptance');
    const shown = textOf((await owner.get('/dashboard/sandbox/audit-log?action=dashboardInvites_accept')).body);
    assert.match(shown, /Dashboard invites: accept/);
  });
});
