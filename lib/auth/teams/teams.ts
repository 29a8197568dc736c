import "server-only";
import type pg from "pg";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { AppError } from "../../errors/app-error";
import type { TeamBody, TeamPatch, TeamView } from "./team-schemas";

// Teams: created, changed and removed by admins (API, CLI, /settings), each change audited with before/after in
// the same transaction. Which records a team holds is read per request by read-scope.ts.

type Db = pg.Pool | pg.PoolClient;

export interface TeamChangeContext {
  actor: Actor;
  requestId: string | null;
  now: Date;
}

interface TeamRow {
  id: string;
  name: string;
  members: { userId: string; email: string | null }[];
  sources: { source: string | null; origin: string | null }[];
  created_at: Date;
  updated_at: Date;
}

const SELECT_TEAM = `SELECT t.id::text AS id, t.name, t.created_at, t.updated_at,
    coalesce((SELECT jsonb_agg(jsonb_build_object('userId', m.user_id, 'email', u.email) ORDER BY u.email, m.user_id)
              FROM team_member m LEFT JOIN "user" u ON u.id = m.user_id WHERE m.team_id = t.id), '[]') AS members,
    coalesce((SELECT jsonb_agg(jsonb_build_object('source', s.source, 'origin', s.origin) ORDER BY s.id)
              FROM team_source s WHERE s.team_id = t.id), '[]') AS sources
  FROM team t`;

function toView(r: TeamRow): TeamView {
  return {
    id: r.id,
    name: r.name,
    members: r.members,
    sources: r.sources,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const notFound = (id: string) =>
  new AppError("not_found", `team ${id} does not exist`, { issues: [{ path: "id", message: "no such team" }] });

export async function listTeams(db: Db): Promise<TeamView[]> {
  const { rows } = await db.query<TeamRow>(`${SELECT_TEAM} ORDER BY lower(t.name), t.id`);
  return rows.map(toView);
}

export async function getTeam(db: Db, id: string): Promise<TeamView> {
  const { rows } = await db.query<TeamRow>(`${SELECT_TEAM} WHERE t.id = $1`, [id]);
  if (!rows[0]) throw notFound(id);
  return toView(rows[0]);
}

export async function findTeamByName(db: Db, name: string): Promise<TeamView | null> {
  const { rows } = await db.query<TeamRow>(`${SELECT_TEAM} WHERE t.name = $1`, [name]);
  return rows[0] ? toView(rows[0]) : null;
}

/** The fields an audit event keeps of a team (members by id, sources as given). */
function audited(t: TeamView) {
  return { name: t.name, members: t.members.map((m) => m.userId), sources: t.sources };
}

async function checkUsers(client: pg.PoolClient, members: { userId: string }[]): Promise<void> {
  const ids = [...new Set(members.map((m) => m.userId))];
  if (ids.length === 0) return;
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM "user" WHERE id = ANY($1::text[])`, [ids]);
  const known = new Set(rows.map((r) => r.id));
  const issues = members.flatMap((m, i) => (known.has(m.userId) ? [] : [{ path: `members.${i}.userId`, message: `no user ${m.userId}` }]));
  if (issues.length) throw new AppError("validation_failed", `members: ${issues.map((i) => i.message).join("; ")}`, { issues });
}

async function writeMembers(client: pg.PoolClient, id: string, members: { userId: string }[]): Promise<void> {
  await checkUsers(client, members);
  await client.query("DELETE FROM team_member WHERE team_id = $1", [id]);
  await client.query("INSERT INTO team_member (team_id, user_id) SELECT $1, u FROM unnest($2::text[]) AS u ON CONFLICT DO NOTHING", [
    id,
    [...new Set(members.map((m) => m.userId))],
  ]);
}

async function writeSources(client: pg.PoolClient, id: string, sources: TeamBody["sources"]): Promise<void> {
  await client.query("DELETE FROM team_source WHERE team_id = $1", [id]);
  await client.query("INSERT INTO team_source (team_id, source, origin) SELECT $1, s, o FROM unnest($2::text[], $3::text[]) AS x(s, o)", [
    id,
    sources.map((s) => s.source ?? null),
    sources.map((s) => s.origin ?? null),
  ]);
}

function nameTaken(name: string): AppError {
  return new AppError("conflict", `a team named ${name} exists`, { issues: [{ path: "name", message: "is taken" }] });
}

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === "23505";

export async function createTeam(pool: pg.Pool, body: TeamBody, ctx: TeamChangeContext): Promise<TeamView> {
  try {
    return await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        "INSERT INTO team (name, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id::text AS id",
        [body.name, ctx.now],
      );
      const id = rows[0]!.id;
      await writeMembers(client, id, body.members);
      await writeSources(client, id, body.sources);
      const team = await getTeam(client, id);
      await appendAudit(
        client,
        [{ ...auditActor(ctx.actor, ctx.requestId), action: "team.created", targetType: "team", targetId: id, after: audited(team) }],
        ctx.now,
      );
      return team;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw nameTaken(body.name);
    throw e;
  }
}

export async function updateTeam(pool: pg.Pool, id: string, patch: TeamPatch, ctx: TeamChangeContext): Promise<TeamView> {
  try {
    return await inTransaction(pool, async (client) => {
      const locked = await client.query("SELECT 1 FROM team WHERE id = $1 FOR UPDATE", [id]);
      if (!locked.rowCount) throw notFound(id);
      const before = await getTeam(client, id);
      if (patch.name !== undefined) await client.query("UPDATE team SET name = $2 WHERE id = $1", [id, patch.name]);
      if (patch.members !== undefined) await writeMembers(client, id, patch.members);
      if (patch.sources !== undefined) await writeSources(client, id, patch.sources);
      await client.query("UPDATE team SET updated_at = $2 WHERE id = $1", [id, ctx.now]);
      const after = await getTeam(client, id);
      await appendAudit(
        client,
        [
          {
            ...auditActor(ctx.actor, ctx.requestId),
            action: "team.updated",
            targetType: "team",
            targetId: id,
            before: audited(before),
            after: audited(after),
          },
        ],
        ctx.now,
      );
      return after;
    });
  } catch (e) {
    if (isUniqueViolation(e) && patch.name !== undefined) throw nameTaken(patch.name);
    throw e;
  }
}

export async function deleteTeam(pool: pg.Pool, id: string, ctx: TeamChangeContext): Promise<void> {
  await inTransaction(pool, async (client) => {
    const locked = await client.query("SELECT 1 FROM team WHERE id = $1 FOR UPDATE", [id]);
    if (!locked.rowCount) throw notFound(id);
    const before = await getTeam(client, id);
    await client.query("DELETE FROM team WHERE id = $1", [id]);
    await appendAudit(
      client,
      [{ ...auditActor(ctx.actor, ctx.requestId), action: "team.deleted", targetType: "team", targetId: id, before: audited(before) }],
      ctx.now,
    );
  });
}
