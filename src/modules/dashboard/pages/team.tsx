import { modePath } from '../paths.ts';
import { mayManageOwners, roles, roleWords, type Role } from '../access.ts';
import type { TeamInviteView, TeamMemberView } from '../team.ts';
import { ActionButton, Badge, CsrfField, DataTable, EmptyState, ExportLink, PeriodFilter, Time, mayShow } from './components.tsx';
import type { ListPeriod } from '../date-range.ts';
import { removeMemberConfirmation, revokeInviteConfirmation } from './confirmations.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

export interface TeamPageProps {
  frame: Frame;
  actor: { userId: string; role: Role };
  members: TeamMemberView[];
  invites: TeamInviteView[];
  /** Who joined, and the invitations first sent, in this period (UTC days); empty: everyone. */
  period: ListPeriod;
  /** How many owners the team has (the members listed may be fewer than the team when a period is set). */
  ownerCount?: number;
  notice?: string | undefined;
  error?: string | undefined;
  /** The invitation form as posted, when it was refused (kept so nothing is typed twice). */
  invite?: { email: string; role: string; error: string };
}

/** The roles this actor may hand out: an admin never the owner role. */
function assignableRoles(actor: { role: Role }): readonly Role[] {
  return mayManageOwners(actor) ? roles : roles.filter((role) => role !== 'owner');
}

function RoleOptions(props: { actor: { role: Role }; selected: string }) {
  return (
    <>
      {assignableRoles(props.actor).map((role) => (
        <option value={role} selected={role === props.selected}>
          {roleWords[role].name}
        </option>
      ))}
    </>
  );
}

function InviteForm(props: TeamPageProps) {
  const { frame, actor } = props;
  const failed = props.invite;
  return (
    <form method="post" action={modePath(frame.mode, '/team/invites')} class="card toolbar" aria-labelledby="invite-heading" novalidate>
      <CsrfField token={frame.csrfToken} />
      {failed ? (
        <div class="error-summary" role="alert" id="invite-error">
          <p class="error">{failed.error}</p>
        </div>
      ) : null}
      <div>
        <label for="invite-email">E-mail</label>
        <input
          id="invite-email"
          name="email"
          type="email"
          autocomplete="off"
          required
          maxlength={254}
          value={failed?.email ?? ''}
          aria-invalid={failed ? 'true' : undefined}
          aria-describedby={failed ? 'invite-error' : undefined}
        />
      </div>
      <div>
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          <RoleOptions actor={actor} selected={failed?.role ?? 'viewer'} />
        </select>
      </div>
      <div class="buttons">
        <button type="submit">Send invitation</button>
      </div>
    </form>
  );
}

/** Whether the actor may change or remove this member: an admin never touches an owner, and the only owner stays one. */
function isManageable(actor: { role: Role }, member: TeamMemberView, ownerCount: number): boolean {
  return member.role !== 'owner' || (mayManageOwners(actor) && ownerCount > 1);
}

function MemberRole(props: { frame: Frame; actor: { userId: string; role: Role }; member: TeamMemberView; ownerCount: number }) {
  const { frame, actor, member } = props;
  if (!isManageable(actor, member, props.ownerCount)) {
    return (
      <span>
        {roleWords[member.role].name}
        {member.role === 'owner' && props.ownerCount === 1 ? <span class="muted"> (the only owner)</span> : null}
      </span>
    );
  }
  const id = `role-${member.id}`;
  return (
    <form method="post" action={modePath(frame.mode, `/team/members/${member.id}/role`)} class="inline role-form">
      <CsrfField token={frame.csrfToken} />
      {/* aria-label rather than visually hidden text: an absolutely positioned element in a table cell would widen a phone's page past the scrolling table. */}
      <select id={id} name="role" aria-label={`Role of ${member.email}`}>
        <RoleOptions actor={actor} selected={member.role} />
      </select>
      <button type="submit" class="secondary" aria-label={`Save the role of ${member.email}`}>
        Save
      </button>
    </form>
  );
}

/** A Team list's CSV, the screen's period applied, for the roles the matrix lets download it. */
function TeamExport(props: { frame: Frame; path: string; period: ListPeriod; title: string; rows: number }) {
  return props.rows > 0 && mayShow(props.frame, 'GET', props.path) ? <ExportLink path={props.path} query={{ from: props.period.from, to: props.period.to }} label={`Export CSV of the ${props.title}`} /> : null;
}

export function TeamPage(props: TeamPageProps) {
  const { frame, actor } = props;
  const base = modePath(frame.mode, '/team');
  // Whether an owner may be changed or removed depends on the whole team, not on who the period shows.
  const ownerCount = props.ownerCount ?? props.members.filter((member) => member.role === 'owner').length;
  const filtered = Boolean(props.period.from || props.period.to);
  return (
    <DashboardPage frame={frame} section="team" title="Team" notice={props.notice} error={props.error}>
      <h1>Team</h1>
      <p class="muted">Everyone here signs in to {frame.merchantName} with their own e-mail and password, in both modes. What each role may do:</p>
      <dl class="roles">
        {roles.map((role) => (
          <>
            <dt>{roleWords[role].name}</dt>
            <dd>{roleWords[role].summary}</dd>
          </>
        ))}
      </dl>
      <h2 id="invite-heading">Invite a member</h2>
      <InviteForm {...props} />
      <PeriodFilter path={base} label="Filter members and invitations" period={props.period} exportPath={undefined} />
      <div class="split">
        <h2 id="members-heading">Members</h2>
        <TeamExport frame={frame} path={`${base}/members/export.csv`} period={props.period} title="members" rows={props.members.length} />
      </div>
      {props.members.length === 0 ? (
        <EmptyState title="Nobody joined in this period." />
      ) : (
        <DataTable label="Members" headers={['Member', 'Role', 'Status', 'Last sign-in', 'Joined', 'Action']}>
          {props.members.map((member) => (
            <tr>
              <td id={`member-${member.id}`}>
                {member.email}
                {member.id === actor.userId ? <span class="muted"> (you)</span> : null}
              </td>
              <td>
                <MemberRole frame={frame} actor={actor} member={member} ownerCount={ownerCount} />
              </td>
              <td>
                <Badge value="ACTIVE" />
              </td>
              <td>
                <Time value={member.lastSignInAt} fallback="not recently" />
              </td>
              <td>
                <Time value={member.createdAt} />
              </td>
              <td>
                {!isManageable(actor, member, ownerCount) ? null : (
                  <ActionButton action={`${base}/members/${member.id}/remove`} frame={frame} label="Remove" tone="danger" describedBy={`member-${member.id}`} confirm={removeMemberConfirmation(member)} />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="split">
        <h2 id="invites-heading">Invitations</h2>
        <TeamExport frame={frame} path={`${base}/invites/export.csv`} period={props.period} title="invitations" rows={props.invites.length} />
      </div>
      {props.invites.length === 0 ? (
        filtered ? (
          <EmptyState title="No open invitation was sent in this period." />
        ) : (
          <EmptyState title="No open invitations.">
            <p>Invite someone above: they get an e-mail with a link to choose their password, valid for 7 days.</p>
          </EmptyState>
        )
      ) : (
        <DataTable label="Invitations" headers={['E-mail', 'Role', 'Status', 'Invited', 'Link works until', 'Actions']}>
          {props.invites.map((invite) => {
            const manageable = invite.role !== 'owner' || mayManageOwners(actor);
            return (
              <tr>
                <td id={`invite-${invite.id}`}>{invite.email}</td>
                <td>{roleWords[invite.role].name}</td>
                <td>{invite.status === 'pending' ? <Badge value="INVITED" words="Invited" /> : <Badge value="EXPIRED" />}</td>
                <td>
                  <Time value={invite.createdAt} />
                </td>
                <td>
                  <Time value={invite.expiresAt} />
                </td>
                <td>
                  {manageable ? (
                    <>
                      <ActionButton action={`${base}/invites/${invite.id}/resend`} frame={frame} label="Resend" tone="secondary" describedBy={`invite-${invite.id}`} />
                      <ActionButton action={`${base}/invites/${invite.id}/revoke`} frame={frame} label="Revoke" tone="danger" describedBy={`invite-${invite.id}`} confirm={revokeInviteConfirmation(invite)} />
                    </>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </DashboardPage>
  );
}
