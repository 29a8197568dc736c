import type { Pool } from "pg";
import { SPATIAL_SOURCES } from "../../lib/seed/places";

// BENCH_INGEST_RULES=n: n active triage rules in a bench database before it ingests, so the store step's rule
// evaluation is part of what bench:ingest measures. Half judge spatial repairs (on the stored analysis, the
// sources the generator uses: they match), half AFC records; approve, quarantine and leave take turns.

export async function insertActiveRules(pool: Pool, n: number, now = new Date()): Promise<void> {
  for (let i = 0; i < n; i++) {
    const spatial = i % 2 === 0;
    const match = spatial
      ? { source: SPATIAL_SOURCES[i % SPATIAL_SOURCES.length], repair: { maxAreaChange: 0.001 * (i + 1), sameType: i % 4 === 0 } }
      : { kind: "afc", afcIssues: ["fare_amount_cents", `battery_pct${i}`] };
    const action = i % 3 === 0 ? { type: "approve" } : i % 3 === 1 ? { type: "quarantine", reason: `bench rule ${i}` } : { type: "leave" };
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO rule (name, status, latest_version, active_version, created_at, updated_at) VALUES ($1, 'active', 1, 1, $2, $2) RETURNING id::text AS id`,
      [`bench-rule-${i}`, now],
    );
    await pool.query(
      `INSERT INTO rule_version (rule_id, version, match, action, drafted_by_email, drafted_at, approved_by_email, approved_at)
       VALUES ($1, 1, $2, $3, 'a@bench', $4, 'b@bench', $4)`,
      [rows[0]!.id, JSON.stringify(match), JSON.stringify(action), now],
    );
  }
}
