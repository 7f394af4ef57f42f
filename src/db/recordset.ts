/**
 * The JSON a batch statement reads through `json_to_recordset(...) as x(grp int, ord int, …)`: one
 * object per member of every group, numbered from 1 by its group (`grp`, in the groups' order) and by
 * its place in the group (`ord`), with the columns `columnsOf` names for it. The ledger's atomic batch
 * (decision 0069) and the refunds written beside it join their rows on `(grp, ord)`.
 */
export function numberedGroupRows<Group, Member>(
  groups: ReadonlyArray<Group>,
  membersOf: (group: Group) => ReadonlyArray<Member>,
  columnsOf: (member: Member, group: Group) => Record<string, unknown>,
): string {
  return JSON.stringify(
    groups.flatMap((group, groupIndex) =>
      membersOf(group).map((member, index) => ({ grp: groupIndex + 1, ord: index + 1, ...columnsOf(member, group) })),
    ),
  );
}
