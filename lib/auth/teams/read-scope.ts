import "server-only";
import type pg from "pg";
import { scopeOf, type RecordScope } from "../../scope/record-scope";

/** The record scope of a user from their teams, one statement (team_member_user_idx), read on every request. */
export async function readRecordScope(db: pg.Pool | pg.PoolClient, userId: string): Promise<RecordScope> {
  const { rows } = await db.query<{ id: string; claims: { source: string | null; origin: string | null }[] }>(
    `SELECT m.team_id::text AS id,
            coalesce(jsonb_agg(jsonb_build_object('source', s.source, 'origin', s.origin)) FILTER (WHERE s.id IS NOT NULL), '[]') AS claims
       FROM team_member m LEFT JOIN team_source s ON s.team_id = m.team_id
      WHERE m.user_id = $1
      GROUP BY m.team_id`,
    [userId],
  );
  return scopeOf(rows);
}

/**
 * The record scope of each team in `teamIds` by itself (a team's alert rule counts the team's records, whoever its
 * members are); a team without claims has a scope that matches nothing, an unknown id none at all.
 */
export async function readTeamScopes(db: pg.Pool | pg.PoolClient, teamIds: readonly string[]): Promise<Map<string, RecordScope>> {
  if (teamIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; claims: { source: string | null; origin: string | null }[] }>(
    `SELECT t.id::text AS id,
            coalesce(jsonb_agg(jsonb_build_object('source', s.source, 'origin', s.origin)) FILTER (WHERE s.id IS NOT NULL), '[]') AS claims
       FROM team t LEFT JOIN team_source s ON s.team_id = t.id
      WHERE t.id = ANY($1::bigint[])
      GROUP BY t.id`,
    [teamIds],
  );
  return new Map(rows.map((r) => [r.id, scopeOf([r])]));
}
