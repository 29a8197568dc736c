import "server-only";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { listen } from "../db/listen";
import { AppError } from "../errors/app-error";
import { sleep } from "../time/sleep";
import { readSourceConfig } from "./manage-sources";
import { openConnector } from "./registry.server";
import { pullSource } from "./pull-source";
import { recordSourceFailure } from "./pullers";
import type { PullCounts } from "./source-schemas";
import type { SourceTurns } from "./source-turns";

// "Pull now" as a row (source_pull_request): whoever asks (the API, `redrive source pull`) writes a request and
// waits for its answer; a runtime (lib/runtime) claims it — at once through NOTIFY, within a poll otherwise —
// and runs the pull under the source's lease, so the lease holder is the one that runs it: a runtime claims
// only requests of sources whose lease is free or its own. The pull's pages are counted on the row in their
// storing transactions, so a runtime that dies mid-pull (its claim not renewed for REQUEST_LEASE_MS) leaves a
// row another runtime resumes where the counts stand: nothing stored twice, nothing counted twice.

export const REQUESTED = "redrive_pull_requested";
export const ANSWERED = "redrive_pull_answered";

export interface PullRequestOptions {
  max?: number;
  actor: Actor;
  requestId: string | null;
  /** how long to wait for the answer (default 60 s) */
  timeoutMs?: number;
}

interface RequestRow {
  status: "waiting" | "running" | "done" | "failed";
  result: PullCounts | null;
  error: string | null;
  claimed_by: string | null;
}

/** Writes the request and tells every runtime about it; 404 for a source that does not exist. */
export async function submitPull(pool: pg.Pool, name: string, opts: Omit<PullRequestOptions, "timeoutMs">): Promise<string> {
  await readSourceConfig(pool, name);
  const { rows } = await pool.query<{ id: string }>(
    `WITH r AS (INSERT INTO source_pull_request (source, max, actor, request_id) VALUES ($1, $2, $3, $4) RETURNING id)
     SELECT id::text AS id, pg_notify($5, $1) FROM r`,
    [name, opts.max ?? null, JSON.stringify(opts.actor), opts.requestId, REQUESTED],
  );
  return rows[0]!.id;
}

/** The request's answer once a runtime has given it: its counts, or the broker's refusal as a 502. */
export async function awaitPull(pool: pg.Pool, name: string, id: string, timeoutMs = 60_000): Promise<PullCounts> {
  // An answer that arrives while the row is being read must not wait out the poll: remembered until then.
  let answered = false;
  let wake = () => {
    answered = true;
  };
  const listener = await listen(pool, ANSWERED, (payload) => payload === id && wake()).catch(() => null);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const { rows } = await pool.query<RequestRow>("SELECT status, result, error, claimed_by FROM source_pull_request WHERE id = $1", [
        id,
      ]);
      const row = rows[0];
      if (!row) throw new AppError("not_found", `source ${name}: the pull request was removed`, { issues: [] });
      if (row.status === "done" && row.result) return row.result;
      if (row.status === "failed") throw new AppError("bad_gateway", `source ${name}: ${row.error ?? "the pull failed"}`, { issues: [] });
      const left = deadline - Date.now();
      if (left <= 0) {
        const where = row.claimed_by ? `running on ${row.claimed_by}` : "waiting for a worker or server to take it";
        throw new AppError(
          "gateway_timeout",
          `source ${name}: no answer within ${Math.round(timeoutMs / 1000)} s (pull request ${id} is ${where}); its counts will show on the source when it ends`,
          { issues: [{ path: "name", message: "the pull has not finished" }], details: { pullRequest: id } },
        );
      }
      if (answered) {
        answered = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(
          () => {
            wake = () => (answered = true);
            resolve();
          },
          Math.min(left, 500),
        );
        wake = () => {
          clearTimeout(t);
          wake = () => (answered = true);
          resolve();
        };
      });
    }
  } finally {
    await listener?.close();
  }
}

export interface ServePullRequestsOptions {
  pool: pg.Pool;
  /** the runtime's id: the name it holds source leases under */
  holder: string;
  signal: AbortSignal;
  log: (msg: string) => void;
  /** this process's turns on each source, shared with its pullers */
  turns: SourceTurns;
  /** the source lease while a request runs (default 30 s, renewed every third of it) */
  leaseMs?: number;
  /** the poll beside NOTIFY (default 1 s) */
  pollMs?: number;
  clock?: () => Date;
  /** serve this request only (`redrive source pull` without a runtime answering it) */
  only?: string;
}

/** Claim a request this runtime may run: its source's lease free, expired or ours; a claim left by a dead runtime. */
const CLAIM = `
  UPDATE source_pull_request r SET status = 'running', claimed_by = $1, claimed_until = now() + $2 * interval '1 millisecond',
    attempts = attempts + 1, started_at = coalesce(started_at, now())
  WHERE r.id = (
    SELECT q.id FROM source_pull_request q LEFT JOIN source s ON s.name = q.source
    WHERE (q.status = 'waiting' OR (q.status = 'running' AND q.claimed_until < now()))
      AND (s.name IS NULL OR s.locked_until IS NULL OR s.locked_until < now() OR s.locked_by = $1)
      AND ($3::bigint IS NULL OR q.id = $3::bigint)
    ORDER BY q.id LIMIT 1 FOR UPDATE OF q SKIP LOCKED)
  RETURNING r.id::text AS id, r.source, r.max, r.actor, r.request_id,
    r.pulled, r.created, r.duplicates, r.unreadable, r.failed_again AS "failedAgain"`;

interface Claimed {
  id: string;
  source: string;
  max: number | null;
  actor: Actor;
  request_id: string | null;
  pulled: number;
  created: number;
  duplicates: number;
  unreadable: number;
  failedAgain: number;
}

/** Runs the pull requests this runtime may take until `signal` aborts; resolves then. */
export async function servePullRequests(opts: ServePullRequestsOptions): Promise<void> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const clock = opts.clock ?? (() => new Date());
  let wake = () => {};
  let listener: { close(): Promise<void> } | null = null;
  const relisten = async () => {
    if (listener || opts.signal.aborted) return;
    listener = await listen(opts.pool, REQUESTED, () => wake()).catch(() => null);
  };
  let lastError = "";
  while (!opts.signal.aborted) {
    await relisten();
    let ran = false;
    try {
      ran = await serveOne(opts, leaseMs, clock);
      lastError = "";
    } catch (err) {
      // Once per kind of failure (a database not migrated yet would say the same every poll).
      if ((err as Error).message !== lastError) opts.log(`pull requests: ${(err as Error).message}`);
      lastError = (err as Error).message;
      // The listener's connection may be what broke: listen again next round.
      await (listener as { close(): Promise<void> } | null)?.close().catch(() => {});
      listener = null;
    }
    if (opts.only && (await finished(opts.pool, opts.only))) break;
    if (ran) continue;
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      wake = done;
      sleep(opts.pollMs ?? 1000, opts.signal).then(done, done);
    });
  }
  await (listener as { close(): Promise<void> } | null)?.close().catch(() => {});
}

async function finished(pool: pg.Pool, id: string): Promise<boolean> {
  const { rows } = await pool.query<{ status: string }>("SELECT status FROM source_pull_request WHERE id = $1", [id]);
  return !rows[0] || rows[0].status === "done" || rows[0].status === "failed";
}

async function serveOne(opts: ServePullRequestsOptions, leaseMs: number, clock: () => Date): Promise<boolean> {
  const { pool, holder } = opts;
  const { rows } = await pool.query<Claimed>(CLAIM, [holder, leaseMs, opts.only ?? null]);
  const req = rows[0];
  if (!req) return false;
  // A pull of this process's own on the source (its puller) ends its round at the next page and lets this run.
  await opts.turns.run(req.source, () => runRequest(opts, req, leaseMs, clock));
  return true;
}

async function answer(pool: pg.Pool, id: string, holder: string, set: string, values: unknown[]): Promise<void> {
  await pool.query(
    `WITH r AS (UPDATE source_pull_request SET ${set}, finished_at = now(), claimed_until = NULL
       WHERE id = $1 AND claimed_by = $2 RETURNING id)
     SELECT pg_notify($3, id::text) FROM r`,
    [id, holder, ANSWERED, ...values],
  );
}

async function runRequest(opts: ServePullRequestsOptions, req: Claimed, leaseMs: number, clock: () => Date): Promise<void> {
  const { pool, holder } = opts;
  const took = await pool.query(
    `UPDATE source SET locked_by = $2, locked_until = now() + $3 * interval '1 millisecond'
     WHERE name = $1 AND (locked_until IS NULL OR locked_until < now() OR locked_by = $2)`,
    [req.source, holder, leaseMs],
  );
  if (took.rowCount === 0) {
    const gone = (await pool.query("SELECT 1 FROM source WHERE name = $1", [req.source])).rowCount === 0;
    if (gone) return answer(pool, req.id, holder, "status = 'failed', error = $4", ["the source was removed"]);
    // Another process took the lease between the claim and now: the request waits for it.
    await pool.query("UPDATE source_pull_request SET status = 'waiting', claimed_by = NULL WHERE id = $1 AND claimed_by = $2", [
      req.id,
      holder,
    ]);
    return;
  }
  const renew = setInterval(() => {
    void pool
      .query(
        `WITH s AS (UPDATE source SET locked_until = now() + $2 * interval '1 millisecond' WHERE name = $1 AND locked_by = $3)
         UPDATE source_pull_request SET claimed_until = now() + $2 * interval '1 millisecond' WHERE id = $4 AND claimed_by = $3`,
        [req.source, leaseMs, holder, req.id],
      )
      .catch(() => {});
  }, leaseMs / 3);
  let connector;
  try {
    const config = await readSourceConfig(pool, req.source);
    connector = await openConnector(config);
    await connector.provision();
    await pullSource(pool, { name: req.source, type: config.type, kind: config.kind }, connector, {
      ...(req.max !== null ? { max: Math.max(0, req.max - req.pulled) } : {}),
      waitMs: 500,
      actor: req.actor,
      requestId: req.request_id,
      clock,
      signal: opts.signal,
      // The page and its count on the request commit together: a resumed request starts where they stand.
      alsoInTransaction: async (client, page) => {
        const { rowCount } = await client.query(
          `UPDATE source_pull_request SET pulled = pulled + $3, created = created + $4, duplicates = duplicates + $5,
             unreadable = unreadable + $6, failed_again = failed_again + $7
           WHERE id = $1 AND claimed_by = $2`,
          [req.id, holder, page.pulled, page.created, page.duplicates, page.unreadable, page.failedAgain],
        );
        if (rowCount === 0) throw new Error(`pull request ${req.id} was taken over by another runtime`);
      },
    });
    if (opts.signal.aborted) {
      // This process stops: the request goes back for another runtime to resume now rather than after the lease.
      await pool.query(
        `WITH s AS (UPDATE source SET locked_by = NULL, locked_until = NULL WHERE name = $1 AND locked_by = $2)
         UPDATE source_pull_request SET status = 'waiting', claimed_by = NULL, claimed_until = NULL WHERE id = $3 AND claimed_by = $2`,
        [req.source, holder, req.id],
      );
      await pool.query("SELECT pg_notify($1, $2)", [REQUESTED, req.source]);
      return;
    }
    const waiting = await connector.waiting().catch(() => null);
    await pool.query(
      `UPDATE source SET connected = true, waiting = $2, waiting_at = now(), last_error = NULL, failures = 0, failing_since = NULL,
         next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
       WHERE name = $1 AND locked_by = $3`,
      [req.source, waiting, holder],
    );
    // The answer is the row's counts: the pages of every runtime that worked on the request.
    await answer(
      pool,
      req.id,
      holder,
      `status = 'done', result = jsonb_strip_nulls(jsonb_build_object('pulled', pulled, 'created', created, 'duplicates', duplicates,
         'unreadable', unreadable, 'failedAgain', NULLIF(failed_again, 0)))`,
      [],
    );
  } catch (err) {
    const message = await recordSourceFailure(pool, req.source, err);
    opts.log(`source ${req.source}: pull request ${req.id}: ${message}`);
    await answer(pool, req.id, holder, "status = 'failed', error = $4", [message]);
  } finally {
    clearInterval(renew);
    await connector?.close().catch(() => {});
  }
}

/**
 * Forgets answered requests (done or failed) older than `olderThanMs`: their askers have long had the answer, and
 * the pull itself is recorded where it matters (source counters, source_message, the audit trail). Waiting and
 * running requests are kept whatever their age: a worker started later still answers them.
 */
export async function pruneAnsweredPulls(pool: pg.Pool, now: Date, olderThanMs = 24 * 3_600_000): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM source_pull_request WHERE status IN ('done', 'failed') AND finished_at < $1::timestamptz - $2 * interval '1 millisecond'`,
    [now, olderThanMs],
  );
  return rowCount ?? 0;
}
