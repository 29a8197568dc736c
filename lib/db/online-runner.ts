import "server-only";
import pg from "pg";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import { concurrentIndexName, planMigration, type Step } from "./migration-script";

// A `-- redrive:no-transaction` migration, run statement by statement on one session. Each DDL statement waits
// at most LOCK_TIMEOUT for its lock and is retried: a statement queued for an ACCESS EXCLUSIVE lock behind a long
// reader would otherwise block every reader and writer that comes after it for as long as it waits. Every step
// is safe to run again, so a migration cut off half-way is simply run again from the top (migrate.ts): an
// INVALID index left by an interrupted CREATE INDEX CONCURRENTLY is dropped and rebuilt, a backfill resumes
// after the last batch it committed.

export const LOCK_TIMEOUT_MS = 1000;
/** pg_stat_activity's name for the runner's session. */
export const RUNNER_APPLICATION = "redrive migrate";
const LOCK_ATTEMPTS = 60;
const LOCK_NOT_AVAILABLE = "55P03";
const DEADLOCK = "40P01";

/** Where backfills keep their progress: a schema of its own, out of the schema engine's sight (public). */
const PROGRESS_DDL = [
  "CREATE SCHEMA IF NOT EXISTS redrive_migrate",
  `CREATE TABLE IF NOT EXISTS redrive_migrate.backfill (
    name text PRIMARY KEY,
    last_key bigint NOT NULL DEFAULT 0,
    rows bigint NOT NULL DEFAULT 0,
    batches integer NOT NULL DEFAULT 0,
    started_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
  )`,
];

export async function runNoTransactionScript(fields: pg.ClientConfig, script: string, log = logToConsole): Promise<void> {
  const plan = planMigration(script);
  if (plan.mode !== "no-transaction") throw new Error("runNoTransactionScript: the script has no redrive:no-transaction marker");
  const client = new pg.Client({ ...fields, application_name: RUNNER_APPLICATION });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
    await client.query("SET statement_timeout = 0");
    for (const step of plan.steps) await runStep(client, step, log);
  } catch (err) {
    throw asAdapterError(err);
  } finally {
    await client.end().catch(() => {});
  }
}

async function runStep(client: pg.Client, step: Step, log: (m: string) => void): Promise<void> {
  if (step.kind === "backfill") return backfill(client, step, log);
  const index = concurrentIndexName(step.sql);
  await retryingLocks(log, firstLine(step.sql), async () => {
    if (index && (await indexState(client, index)) === "invalid") {
      log(`dropping the INVALID index ${index} an interrupted build left`);
      await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${pg.escapeIdentifier(index)}`);
    }
    if (index && (await indexState(client, index)) === "valid") return;
    await client.query(step.sql);
  });
}

/**
 * Runs `attempt` again when it gave up waiting for a lock (or lost a deadlock, which a backfill batch can against
 * a writer locking the same rows in another order); anything else fails the migration.
 */
async function retryingLocks<T>(log: (m: string) => void, what: string, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code !== LOCK_NOT_AVAILABLE && code !== DEADLOCK) || n >= LOCK_ATTEMPTS) throw err;
      log(`${code === DEADLOCK ? "deadlock" : `lock not granted within ${LOCK_TIMEOUT_MS} ms`} (attempt ${n}), retrying: ${what}`);
      await sleep(Math.min(5000, 200 * n));
    }
  }
}

async function indexState(client: pg.Client, name: string): Promise<"none" | "valid" | "invalid"> {
  const { rows } = await client.query<{ valid: boolean }>(
    `SELECT i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
     WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`,
    [name],
  );
  return rows[0] === undefined ? "none" : rows[0].valid ? "valid" : "invalid";
}

/**
 * Batches in key order, each committed with its progress row, so a restart goes on after the last committed one.
 * A batch holds row locks on its own rows only, for one batch's time.
 */
async function backfill(client: pg.Client, step: Extract<Step, { kind: "backfill" }>, log: (m: string) => void): Promise<void> {
  for (const ddl of PROGRESS_DDL) await client.query(ddl);
  await client.query("INSERT INTO redrive_migrate.backfill (name) VALUES ($1) ON CONFLICT DO NOTHING", [step.name]);
  const { rows } = await client.query<{ last: string; done: boolean; rows: string }>(
    "SELECT last_key::text AS last, finished_at IS NOT NULL AS done, rows::text AS rows FROM redrive_migrate.backfill WHERE name = $1",
    [step.name],
  );
  if (rows[0]?.done) return;
  let last = rows[0]?.last ?? "0";
  let total = Number(rows[0]?.rows ?? 0);
  if (last !== "0") log(`backfill ${step.name}: resuming after key ${last} (${total} rows done)`);
  let said = performance.now();
  for (;;) {
    const n = await retryingLocks(log, `backfill ${step.name} after key ${last}`, async () => {
      await client.query("BEGIN");
      try {
        const r = await client.query<{ n: number; last: string | null }>(
          `WITH batch AS (${step.sql}) SELECT count(*)::int AS n, max(key)::text AS last FROM batch`,
          [last, step.batch],
        );
        const got = r.rows[0]?.n ?? 0;
        if (got === 0) {
          await client.query("UPDATE redrive_migrate.backfill SET finished_at = now(), updated_at = now() WHERE name = $1", [step.name]);
        } else {
          await client.query(
            "UPDATE redrive_migrate.backfill SET last_key = $2, rows = rows + $3, batches = batches + 1, updated_at = now() WHERE name = $1",
            [step.name, r.rows[0]!.last, got],
          );
        }
        await client.query("COMMIT");
        if (got > 0) last = r.rows[0]!.last!;
        return got;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    });
    if (n === 0) {
      log(`backfill ${step.name}: done, ${total} rows`);
      return;
    }
    total += n;
    if (performance.now() - said > 10_000) {
      said = performance.now();
      log(`backfill ${step.name}: ${total} rows, up to key ${last}`);
    }
  }
}

/** The schema engine reports a driver error it understands, with PostgreSQL's code and message. */
function asAdapterError(err: unknown): unknown {
  const e = err as Partial<pg.DatabaseError>;
  if (err instanceof Error && typeof e.code === "string" && typeof e.severity === "string") {
    return new DriverAdapterError({
      kind: "postgres",
      code: e.code,
      severity: e.severity,
      message: err.message,
      detail: e.detail,
      column: e.column,
      hint: e.hint,
    });
  }
  return err;
}

function firstLine(sql: string): string {
  return sql.split("\n").find((l) => l.trim() && !l.trim().startsWith("--")) ?? sql;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function logToConsole(m: string): void {
  console.log(`[migrate] ${m}`);
}
