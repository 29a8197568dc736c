import "server-only";
import type pg from "pg";
import { migrationStatus } from "./migration-files";

export interface Health {
  status: "ok" | "degraded" | "down";
  database: { ok: boolean; latencyMs: number | null; version: string | null; embedded: boolean; error?: string };
  /** `running`: being applied by some process now (pending too); a backfilling migration stays here until done */
  migrations: { applied: number; pending: string[]; failed: string[]; running?: string[] } | null;
}

export async function databaseHealth(pool: pg.Pool): Promise<Health> {
  const embedded = process.env.REDRIVE_DB_MODE === "embedded";
  const t0 = performance.now();
  try {
    const { rows } = await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    const latencyMs = Math.round((performance.now() - t0) * 10) / 10;
    const migrations = await migrationStatus(async (sql) => (await pool.query(sql)).rows);
    const ok = migrations.pending.length === 0 && migrations.failed.length === 0;
    return {
      status: ok ? "ok" : "degraded",
      database: { ok: true, latencyMs, version: rows[0]?.v ?? null, embedded },
      migrations,
    };
  } catch (err) {
    console.error(`[health] database check failed: ${(err as Error).message}`);
    return {
      status: "down",
      database: { ok: false, latencyMs: null, version: null, embedded, error: "database unreachable" },
      migrations: null,
    };
  }
}

export interface Readiness {
  ready: boolean;
  /** why not, when not: "draining", "database unreachable", "migrations pending: …", "migrations being applied: …",
   * "migrations failed: …" */
  reasons: string[];
}

/**
 * Readiness from health: migrations this code expects but the database lacks keep the server out of rotation, while
 * migrations the database has and this code does not know (a newer version expanded the schema during a rolling
 * upgrade) do not. A migration counts as applied only once all its steps are, backfills included: the code that
 * ships with it may read what the backfill fills. Servers of the previous release, which do not know it, stay ready
 * while it runs.
 */
export function readiness(health: Health, draining: boolean): Readiness {
  const reasons: string[] = [];
  if (draining) reasons.push("draining");
  if (!health.database.ok) reasons.push("database unreachable");
  const running = health.migrations?.running ?? [];
  const waiting = health.migrations?.pending.filter((m) => !running.includes(m)) ?? [];
  if (waiting.length) reasons.push(`migrations pending: ${waiting.join(", ")}`);
  if (running.length) reasons.push(`migrations being applied: ${running.join(", ")}`);
  if (health.migrations?.failed.length) reasons.push(`migrations failed: ${health.migrations.failed.join(", ")}`);
  return { ready: reasons.length === 0, reasons };
}
