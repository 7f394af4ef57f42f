import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditEvents, dashboardInvites, dashboardSessions, dashboardUsers } from '../../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { DashboardClient, signedInClient, textOf } from './client.ts';
import { addMember, memberEmail, memberPassword, postInvite } from './team-helpers.ts';
import { createTeamService } from '../../../src/modules/dashboard/team.ts';

/**
 * The owner rules of the Team screen (issue 18 item 11): a merchant never loses its last owner, only
 * owners give, change or take the owner role, a removed member's sessions end at once, and a role
 * change applies from the member's next request.
 */
describe('dashboard team: owners, roles and removal', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let owner: DashboardClient;
  let ownerId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Owner Sails' });
    owner = await signedInClient(context, merchant);
    const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, merchant.dashboardUser.email));
    assert.equal(user?.role, 'owner', 'the operator-created user is an owner');
    ownerId = String(user?.id);
  });
  after(async () => context.close());

  async function roleOf(userId: string): Promise<string | undefined> {
    const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.id, userId));
    return user?.role;
  }

  async function owners(): Promise<number> {
    return (await context.database.db.select().from(dashboardUsers).where(and(eq(dashboardUsers.merchantId, merchant.id), eq(dashboardUsers.role, 'owner')))).length;
  }

  test('the only owner can neither step down nor remove themselves', async () => {
    await owner.get('/dashboard/sandbox/team');
    const demoted = await owner.post(`/dashboard/sandbox/team/members/${ownerId}/role`, { role: 'admin' });
    assert.equal(demoted.headers.location, '/dashboard/sandbox/team?error=last-owner');
    assert.match(textOf((await owner.get('/dashboard/sandbox/team?error=last-owner')).body), /Your account needs at least one owner\. Make another member an owner first\./);
    const removed = await owner.post(`/dashboard/sandbox/team/members/${ownerId}/remove`, { confirmed: '1' });
    assert.equal(removed.headers.location, '/dashboard/sandbox/team?error=last-owner');
    assert.equal(await roleOf(ownerId), 'owner');
    assert.equal((await owner.get('/dashboard/sandbox/team')).statusCode, 200, 'still signed in');
  });

  test('an admin manages everyone but owners: cannot invite, promote to, change or remove an owner (403, nothing changes)', async () => {
    const admin = await addMember(context, owner, merchant.id, 'admin');
    const viewer = await addMember(context, owner, merchant.id, 'viewer');
    const invitesBefore = (await context.database.db.select().from(dashboardInvites)).length;
    const ownerInvite = await postInvite(admin.client, memberEmail('would-be-owner'), 'owner');
    assert.equal(ownerInvite.statusCode, 403);
    assert.match(textOf(ownerInvite.body), /Only an owner can give, change or take the owner role/);
    assert.equal((await context.database.db.select().from(dashboardInvites)).length, invitesBefore);
    await admin.client.get('/dashboard/sandbox/team');
    assert.equal((await admin.client.post(`/dashboard/sandbox/team/members/${viewer.userId}/role`, { role: 'owner' })).statusCode, 403);
    assert.equal((await admin.client.post(`/dashboard/sandbox/team/members/${ownerId}/role`, { role: 'viewer' })).statusCode, 403);
    assert.equal((await admin.client.post(`/dashboard/sandbox/team/members/${ownerId}/remove`, { confirmed: '1' })).statusCode, 403);
    assert.equal(await roleOf(viewer.userId), 'viewer');
    assert.equal(await roleOf(ownerId), 'owner');
    // The admin's Team screen offers no owner role and no control on the owner's row.
    const page = await admin.client.get('/dashboard/sandbox/team');
    assert.doesNotMatch(page.body, /<option value="owner"/);
    assert.doesNotMatch(page.body, new RegExp(`/team/members/${ownerId}/`));
    // What an admin may do: change a non-owner's role; it applies at the member's next request.
    assert.equal((await viewer.client.get('/dashboard/sandbox/developers/api-keys')).statusCode, 200);
    await viewer.client.get('/dashboard/sandbox/developers/api-keys');
    assert.equal((await viewer.client.post('/dashboard/sandbox/developers/api-keys', { name: 'viewer key' })).statusCode, 403);
    const changed = await admin.client.post(`/dashboard/sandbox/team/members/${viewer.userId}/role`, { role: 'developer' });
    assert.equal(changed.headers.location, '/dashboard/sandbox/team?notice=role-changed');
    await viewer.client.get('/dashboard/sandbox/developers/api-keys');
    assert.equal((await viewer.client.post('/dashboard/sandbox/developers/api-keys', { name: 'now a developer' })).statusCode, 303);
    const unknownRole = await admin.client.post(`/dashboard/sandbox/team/members/${viewer.userId}/role`, { role: 'superuser' });
    assert.equal(unknownRole.statusCode, 400);
    assert.match(textOf(unknownRole.body), /role must be one of owner, admin, developer, support, viewer/);
    assert.equal(await roleOf(viewer.userId), 'developer');
  });

  test('removing a member asks first, then ends every session of theirs at once', async () => {
    const support = await addMember(context, owner, merchant.id, 'support');
    const secondDevice = new DashboardClient(context);
    await secondDevice.signIn({ email: support.email, password: memberPassword });
    assert.equal((await context.database.db.select().from(dashboardSessions).where(eq(dashboardSessions.userId, support.userId))).length, 2);
    await owner.get('/dashboard/sandbox/team');
    const asked = await owner.post(`/dashboard/sandbox/team/members/${support.userId}/remove`);
    assert.equal(asked.statusCode, 200);
    assert.match(textOf(asked.body), new RegExp(`Remove ${support.email} from the team\\? ${support.email} is signed out everywhere at once`));
    assert.equal(await roleOf(support.userId), 'support', 'asking changed nothing');
    const removed = await owner.post(`/dashboard/sandbox/team/members/${support.userId}/remove`, { confirmed: '1' });
    assert.equal(removed.headers.location, '/dashboard/sandbox/team?notice=member-removed');
    assert.equal(await roleOf(support.userId), undefined);
    assert.equal((await context.database.db.select().from(dashboardSessions).where(eq(dashboardSessions.userId, support.userId))).length, 0);
    for (const client of [support.client, secondDevice]) {
      const next = await client.get('/dashboard/sandbox');
      assert.equal(next.statusCode, 303);
      assert.match(String(next.headers.location), /^\/dashboard\/sign-in/);
    }
    const signIn = new DashboardClient(context);
    await signIn.get('/dashboard/sign-in');
    assert.equal((await signIn.post('/dashboard/sign-in', { email: support.email, password: memberPassword })).statusCode, 401);
    // The address can be invited again.
    assert.equal((await postInvite(owner, support.email, 'viewer')).statusCode, 303);
  });

  test('with a second owner, an owner may step down; two owners demoting each other at once leave one owner', async () => {
    const second = await addMember(context, owner, merchant.id, 'admin');
    await owner.get('/dashboard/sandbox/team');
    assert.equal((await owner.post(`/dashboard/sandbox/team/members/${second.userId}/role`, { role: 'owner' })).headers.location, '/dashboard/sandbox/team?notice=role-changed');
    assert.equal(await owners(), 2);
    await second.client.get('/dashboard/sandbox/team');
    await owner.get('/dashboard/sandbox/team');
    const [first, other] = await Promise.all([
      owner.post(`/dashboard/sandbox/team/members/${second.userId}/role`, { role: 'admin' }),
      second.client.post(`/dashboard/sandbox/team/members/${ownerId}/role`, { role: 'admin' }),
    ]);
    // Both take the owner rows' lock and read their own role under it: whichever comes second is no
    // longer an owner and is refused (403), however the two requests interleave (a check of the
    // session's role alone let the second act as an owner when its session was read before the first
    // committed).
    const outcomes = [first, other].map((response) => `${response.statusCode} ${response.headers.location ?? textOf(response.body).match(/Only an owner can[^.]*\./)?.[0]}`).sort();
    assert.deepEqual(outcomes, ['303 /dashboard/sandbox/team?notice=role-changed', '403 Only an owner can give, change or take the owner role, or invite an owner.'], JSON.stringify(outcomes));
    assert.equal(await owners(), 1);
    await context.platform.services.audit.flush();
    const recorded = await context.database.db.select().from(auditEvents).where(and(eq(auditEvents.merchantId, merchant.id), eq(auditEvents.action, 'dashboardUsers_changeRole')));
    assert.ok(recorded.some((row) => row.outcome === 'SUCCEEDED' && row.target === second.userId));
    assert.ok(recorded.some((row) => row.outcome === 'FAILED' && row.errorCode === 'last-owner'));
    assert.ok(recorded.some((row) => row.outcome === 'FAILED' && row.statusCode === 403), 'refused attempts are recorded too');
    const removals = await context.database.db.select().from(auditEvents).where(and(eq(auditEvents.merchantId, merchant.id), eq(auditEvents.action, 'dashboardUsers_remove')));
    assert.ok(removals.some((row) => row.outcome === 'SUCCEEDED'));
  });

  test('a change is decided on the actor\'s role as it is when it runs, not as their request began with it (403, nothing changes)', async () => {
    const demoted = await addMember(context, owner, merchant.id, 'admin');
    const target = await addMember(context, owner, merchant.id, 'viewer');
    await owner.get('/dashboard/sandbox/team');
    assert.equal((await owner.post(`/dashboard/sandbox/team/members/${demoted.userId}/role`, { role: 'support' })).headers.location, '/dashboard/sandbox/team?notice=role-changed');
    // The role their session read when their request began, before the owner's change committed.
    const team = createTeamService({ database: context.database, clock: context.clock, keyRing: context.keyRing, publicUrl: context.config.publicUrl });
    const stale = { userId: demoted.userId, role: 'admin' as const, merchant: { id: merchant.id, name: 'Owner Sails' } };
    for (const attempt of [() => team.changeRole(stale, target.userId, 'developer'), () => team.removeMember(stale, target.userId)]) {
      await assert.rejects(attempt, (error: Error & { code?: string; message: string }) => error.code === 'FORBIDDEN' && /Your role changed meanwhile/.test(error.message));
    }
    assert.equal(await roleOf(target.userId), 'viewer');
  });

  test('a member who leaves (removes themselves) lands on the sign-in page, signed out', async () => {
    const leaving = await addMember(context, owner, merchant.id, 'admin');
    await leaving.client.get('/dashboard/sandbox/team');
    const left = await leaving.client.post(`/dashboard/sandbox/team/members/${leaving.userId}/remove`, { confirmed: '1' });
    assert.equal(left.headers.location, '/dashboard/sign-in?signed_out=1');
    assert.equal(await roleOf(leaving.userId), undefined);
    assert.match(String((await leaving.client.get('/dashboard/sandbox')).headers.location), /^\/dashboard\/sign-in/);
  });
});
