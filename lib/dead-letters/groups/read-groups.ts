import "server-only";
import { paramsOf, scopeSql, sourceColumnSql, sourceInScope, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { can, ROLES } from "../../auth/permissions";
import { readRecordScope } from "../../auth/teams/read-scope";
import { AppError } from "../../errors/app-error";
import { groupsFromCells, lastDays, sortGroups, TREND_DAYS, type GroupCell, type GroupRow } from "./group-rules";
import type { FailureGroupDetail, FailureGroupView, GroupListQuery, GroupNote, GroupStatus } from "../contract/groups";
import { handlesOf } from "../notes/mentions";
import type { MentionList, MentionedUser } from "../contract/notes";

// Failure groups as the list and a group's page read them. Counts and trends come from the trigger-maintained
// rollup (dead_letter_stat, see lib/dead-letters/query/facets.ts): at 1M records a few thousand delta rows
// summed per (source, reason group, status, day), not a count over dead_letter. Status, owner and first/last
// seen come from failure_group, one row per group.

type Db = pg.Pool | pg.PoolClient;

interface CellRow {
  id: string;
  source: string;
  reason_group: string;
  status: string;
  day: string;
  n: string;
}

interface GroupDbRow {
  id: string;
  source: string;
  reason_group: string;
  status: GroupStatus;
  owner_id: string | null;
  owner_email: string | null;
  owner_name: string | null;
  resolution_reason: string | null;
  resolution_link: string | null;
  resolved_at: Date | null;
  regression: boolean;
  regressed_at: Date | null;
  first_seen_at: Date;
  last_seen_at: Date;
  version: number;
}

const GROUP_COLUMNS = `g.id, g.source, g.reason_group, g.status::text AS status, g.owner_id, u.email AS owner_email,
  u.name AS owner_name, g.resolution_reason, g.resolution_link, g.resolved_at, g.regression, g.regressed_at,
  g.first_seen_at, g.last_seen_at, g.version`;

function toRow(r: GroupDbRow): GroupRow {
  return {
    id: r.id,
    source: r.source,
    reasonGroup: r.reason_group,
    status: r.status,
    owner: r.owner_id === null ? null : { id: r.owner_id, email: r.owner_email ?? "(unknown user)", name: r.owner_name ?? "" },
    regression: r.regression,
    regressedAt: r.regressed_at?.toISOString() ?? null,
    resolution:
      r.resolution_reason === null
        ? null
        : { reason: r.resolution_reason, link: r.resolution_link, at: r.resolved_at?.toISOString() ?? null },
    firstSeenAt: r.first_seen_at.toISOString(),
    lastSeenAt: r.last_seen_at.toISOString(),
    version: r.version,
  };
}

/**
 * The rollup per group, status and day. Days before the trend's window are summed into one cell (day '')
 * so the result stays small however old the data; the group id is computed once per group, after grouping.
 */
async function groupCells(db: Db, scope: RecordScope, now: Date, where: { source?: string; id?: string }): Promise<GroupCell[]> {
  const first = lastDays(now, TREND_DAYS)[0] as string;
  const values: unknown[] = [first];
  const conds: string[] = [];
  if (where.source !== undefined) conds.push(`source = $${values.push(where.source)}`);
  if (where.id !== undefined) conds.push(`failure_group_id(source, reason_group) = $${values.push(where.id)}`);
  // A team claiming a broker source owns some of a source's records and not others: the rollup, per source, cannot
  // tell them apart, so such a scope counts its groups from the records themselves.
  const fromRecords = !scope.all && scope.origins.length > 0;
  if (!scope.all) conds.push(fromRecords ? scopeSql(scope, paramsOf(values), "") : sourceColumnSql(scope, paramsOf(values), "source"));
  const cells = fromRecords
    ? `SELECT source, origin_source, reason_group, status, (observed_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM dead_letter`
    : "SELECT source, reason_group, status, day, n FROM dead_letter_stat";
  const { rows } = await db.query<CellRow>(
    `SELECT failure_group_id(source, reason_group) AS id, source, reason_group, status::text AS status, day, sum(n)::text AS n
     FROM (SELECT source, reason_group, status, CASE WHEN day >= $1::date THEN to_char(day, 'YYYY-MM-DD') ELSE '' END AS day, n
           FROM (${cells}) c ${conds.length ? `WHERE ${conds.join(" AND ")}` : ""}) s
     GROUP BY source, reason_group, status, day HAVING sum(n) <> 0`,
    values,
  );
  return rows.map((r) => ({ id: r.id, source: r.source, reasonGroup: r.reason_group, status: r.status, day: r.day, n: Number(r.n) }));
}

export async function listGroups(db: Db, scope: RecordScope, query: GroupListQuery, now: Date): Promise<FailureGroupView[]> {
  const values: unknown[] = [];
  const conds: string[] = [];
  if (query.source !== undefined) conds.push(`g.source = $${values.push(query.source)}`);
  const [cells, rows] = await Promise.all([
    groupCells(db, scope, now, { source: query.source }),
    db.query<GroupDbRow>(
      `SELECT ${GROUP_COLUMNS} FROM failure_group g LEFT JOIN "user" u ON u.id = g.owner_id
       ${conds.length ? `WHERE ${conds.join(" AND ")}` : ""}`,
      values,
    ),
  ]);
  // A tracked group with no records in scope is another team's: only groups holding the reader's records are listed.
  const visible = new Set(cells.map((c) => c.id));
  let groups = groupsFromCells(
    cells,
    rows.rows.map(toRow).filter((r) => scope.all || visible.has(r.id)),
    now,
  );
  if (query.status) {
    const wanted = new Set<string>(query.status);
    groups = groups.filter((g) => wanted.has(g.status));
  }
  return sortGroups(groups, query.sort).slice(0, query.limit);
}

const notFound = (id: string) =>
  new AppError("not_found", `failure group ${id} does not exist (or holds no records)`, {
    issues: [{ path: "id", message: "no such group" }],
  });

export async function getGroup(db: Db, scope: RecordScope, id: string, now: Date): Promise<FailureGroupDetail> {
  const [cells, rows, notes, resolvedBy] = await Promise.all([
    groupCells(db, scope, now, { id }),
    db.query<GroupDbRow>(`SELECT ${GROUP_COLUMNS} FROM failure_group g LEFT JOIN "user" u ON u.id = g.owner_id WHERE g.id = $1`, [id]),
    groupNotes(db, id),
    resolverOf(db, id),
  ]);
  const row = rows.rows[0];
  const group = groupsFromCells(cells, rows.rows.map(toRow), now)[0];
  const by = (g: { resolution: unknown }) => (g.resolution ? resolvedBy : null);
  if (group) return { ...group, notes, resolvedBy: by(group) };
  // A group whose records are all gone (retention, purge) keeps its row, status and notes; shown to a scoped reader
  // only when its source is theirs (no record tells which team it was).
  if (row && (scope.all || sourceInScope(scope, row.source))) {
    const kept = toRow(row);
    return {
      ...kept,
      count: 0,
      unresolved: 0,
      trend: lastDays(now, TREND_DAYS).map((day) => ({ day, count: 0 })),
      notes,
      resolvedBy: by(kept),
    };
  }
  throw notFound(id);
}

/**
 * Who set the group's current resolution: the actor of the latest audited change into "resolved". The audit chain
 * is the record of who did what (a resolution is only ever set through updateGroup, which audits it), so the
 * group's row keeps no copy of its own.
 */
async function resolverOf(db: Db, id: string): Promise<string | null> {
  const { rows } = await db.query<{ actor_email: string | null }>(
    `SELECT actor_email FROM audit_event
     WHERE target_type = 'failure_group' AND target_id = $1 AND action = 'failure_group.updated' AND after->>'status' = 'resolved'
       AND (before->>'status' IS DISTINCT FROM 'resolved' OR before->'resolution' IS DISTINCT FROM after->'resolution')
     ORDER BY id DESC LIMIT 1`,
    [id],
  );
  return rows[0]?.actor_email ?? null;
}

interface GroupNoteRow {
  id: string;
  group_id: string;
  source: string;
  reason_group: string;
  author_id: string | null;
  author_email: string;
  author_name: string | null;
  body: string;
  created_at: Date;
  mentioned: { id: string; email: string; name: string }[];
}

const GROUP_NOTE_COLUMNS = `n.id::text AS id, n.group_id, g.source, g.reason_group, n.author_id, n.author_email, a.name AS author_name,
  n.body, n.created_at,
  COALESCE((SELECT json_agg(json_build_object('id', u.id, 'email', u.email, 'name', u.name) ORDER BY u.email)
            FROM "user" u WHERE u.id = ANY (n.mentions)), '[]') AS mentioned`;
const GROUP_NOTE_FROM = `failure_group_note n JOIN failure_group g ON g.id = n.group_id LEFT JOIN "user" a ON a.id = n.author_id`;

const mentioned = (r: GroupNoteRow): MentionedUser[] => r.mentioned.map((u) => ({ ...u, handle: handlesOf(u)[0]! }));

async function groupNotes(db: Db, id: string): Promise<GroupNote[]> {
  const { rows } = await db.query<GroupNoteRow>(
    `SELECT ${GROUP_NOTE_COLUMNS} FROM ${GROUP_NOTE_FROM} WHERE n.group_id = $1 ORDER BY n.id`,
    [id],
  );
  return rows.map((r) => ({ id: r.id, authorEmail: r.author_email, body: r.body, at: r.created_at.toISOString(), mentions: mentioned(r) }));
}

/** The notes on failure groups that mention a user: how many, and the newest `limit` (as mentionsOf for records). */
export async function groupMentionsOf(db: Db, scope: RecordScope, userId: string, limit = 20): Promise<MentionList> {
  const countValues: unknown[] = [userId];
  const pageValues: unknown[] = [userId, limit];
  const inScope = (values: unknown[]) => sourceColumnSql(scope, paramsOf(values), "g.source");
  const [count, rows] = await Promise.all([
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM failure_group_note n JOIN failure_group g ON g.id = n.group_id
       WHERE n.mentions @> ARRAY[$1]::text[] AND ${inScope(countValues)}`,
      countValues,
    ),
    db.query<GroupNoteRow>(
      `SELECT ${GROUP_NOTE_COLUMNS} FROM ${GROUP_NOTE_FROM} WHERE n.mentions @> ARRAY[$1]::text[] AND ${inScope(pageValues)}
       ORDER BY n.created_at DESC, n.id DESC LIMIT $2`,
      pageValues,
    ),
  ]);
  return {
    count: count.rows[0]?.n ?? 0,
    items: rows.rows.map((r) => ({
      id: `group-note-${r.id}`,
      deadLetterId: null,
      group: { id: r.group_id, source: r.source, reasonGroup: r.reason_group },
      author: { id: r.author_id ?? "", email: r.author_email, name: r.author_name },
      createdAt: r.created_at.toISOString(),
      text: r.body,
      mentions: mentioned(r),
    })),
  };
}

/** The (source, reason group) of a group id, from its row or, for an untracked group, from the rollup. */
export async function groupKey(db: Db, id: string): Promise<{ source: string; reasonGroup: string }> {
  const { rows } = await db.query<{ source: string; reason_group: string }>(
    `SELECT source, reason_group FROM failure_group WHERE id = $1
     UNION ALL
     (SELECT source, reason_group FROM dead_letter_stat WHERE failure_group_id(source, reason_group) = $1 LIMIT 1)
     LIMIT 1`,
    [id],
  );
  const r = rows[0];
  if (!r) throw notFound(id);
  return { source: r.source, reasonGroup: r.reason_group };
}

/** Whether a user may open the group: getGroup under their own teams (404 for them: no). */
export async function userSeesGroup(db: Db, userId: string, groupId: string, now: Date): Promise<boolean> {
  try {
    await getGroup(db, await readRecordScope(db, userId), groupId, now);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return false;
    throw err;
  }
}

/**
 * Who may own a group: active users whose role may triage and who can open the group (the owner select of its page).
 * Users in the same teams see the same groups: one check per set of teams, none for a user in no team (every group).
 */
export async function assignableOwners(db: Db, groupId: string, now: Date): Promise<{ id: string; name: string; email: string }[]> {
  const roles = ROLES.filter((r) => can(r, "dead_letters:triage"));
  const { rows } = await db.query<{ id: string; name: string; email: string; teams: string }>(
    `SELECT u.id, u.name, u.email, coalesce(string_agg(m.team_id::text, ',' ORDER BY m.team_id), '') AS teams
     FROM "user" u LEFT JOIN team_member m ON m.user_id = u.id
     WHERE NOT u.disabled AND u.role::text = ANY($1::text[])
     GROUP BY u.id ORDER BY lower(u.name), u.email`,
    [roles],
  );
  const byTeams = new Map<string, Promise<boolean>>();
  for (const r of rows) if (r.teams !== "" && !byTeams.has(r.teams)) byTeams.set(r.teams, userSeesGroup(db, r.id, groupId, now));
  const sees = await Promise.all(rows.map((r) => (r.teams === "" ? true : byTeams.get(r.teams)!)));
  return rows.filter((_, i) => sees[i]).map(({ id, name, email }) => ({ id, name, email }));
}
