import "server-only";
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { sleep } from "../time/sleep";
import type { SourceConnector } from "./connector";
import { readSourceConfig } from "./manage-sources";
import { openConnector } from "./registry.server";
import { pullSource } from "./pull-source";
import { sourceErrorCategory } from "./error-category";
import type { SourceTurns } from "./source-turns";

// The continuous drain: every runtime that pulls (lib/runtime) runs this loop. A source is pulled by one process at a time
// (a lease on its row, taken with SKIP LOCKED and renewed while pulling); a broker that is down or refuses the
// credentials is a state on the source, retried with a backoff that grows to a minute, never a crash.

export interface PullersOptions {
  pool: pg.Pool;
  signal: AbortSignal;
  log: (msg: string) => void;
  workerId?: string;
  /** how long a lease lasts without renewal (default 30 s) */
  leaseMs?: number;
  /** idle poll between rounds (default 1 s) */
  pollMs?: number;
  /** how long one take waits for a message (default 1 s) */
  waitMs?: number;
  clock?: () => Date;
  /** this process's turns on each source, shared with the pull requests it runs */
  turns: SourceTurns;
}

const MAX_BACKOFF_MS = 60_000;

/**
 * A failed attempt on the source's row: not connected, why, and the next attempt 1, 2, 4 … 60 s later; the
 * lease let go. Returns the message recorded.
 */
export async function recordSourceFailure(pool: pg.Pool, name: string, err: unknown): Promise<string> {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
  await pool
    .query(
      `UPDATE source SET connected = false, last_error = $2, last_error_category = $4, last_error_at = now(), failures = failures + 1,
         failing_since = coalesce(failing_since, now()),
         next_attempt_at = now() + (LEAST($3::float8, 1000 * 2 ^ failures) * interval '1 millisecond'),
         locked_by = NULL, locked_until = NULL
       WHERE name = $1`,
      [name, message, MAX_BACKOFF_MS, sourceErrorCategory(err)],
    )
    .catch(() => {});
  return message;
}

export function startPullers(opts: PullersOptions): { done: Promise<void> } {
  const id = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const clock = opts.clock ?? (() => new Date());
  const actor: Actor = { id: null, email: `puller:${id}`, role: "system" };
  const connectors = new Map<string, { connector: SourceConnector; version: string }>();

  async function closeConnector(name: string): Promise<void> {
    const held = connectors.get(name);
    connectors.delete(name);
    await held?.connector.close().catch(() => {});
  }

  async function claim(): Promise<{ name: string; version: string } | null> {
    const { rows } = await opts.pool.query<{ name: string; version: string }>(
      `UPDATE source s SET locked_by = $1, locked_until = now() + $2 * interval '1 millisecond'
       WHERE s.name = (
         SELECT name FROM source
         WHERE enabled AND (locked_until IS NULL OR locked_until < now() OR locked_by = $1)
           AND (next_attempt_at IS NULL OR next_attempt_at <= now())
         ORDER BY last_pull_at NULLS FIRST, name LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING s.name, s.updated_at::text AS version`,
      [id, leaseMs],
    );
    return rows[0] ?? null;
  }

  async function release(name: string): Promise<void> {
    await opts.pool.query("UPDATE source SET locked_by = NULL, locked_until = NULL WHERE name = $1 AND locked_by = $2", [name, id]);
  }

  async function fail(name: string, err: unknown): Promise<void> {
    const message = await recordSourceFailure(opts.pool, name, err);
    opts.log(`source ${name}: ${message}`);
  }

  async function round(): Promise<boolean> {
    const claimed = await claim();
    if (!claimed) return false;
    await opts.turns.run(claimed.name, () => pullClaimed(claimed), { wants: false });
    return true;
  }

  async function pullClaimed({ name, version }: { name: string; version: string }): Promise<void> {
    try {
      const config = await readSourceConfig(opts.pool, name);
      let held = connectors.get(name);
      if (held && held.version !== version) {
        await closeConnector(name);
        held = undefined;
      }
      if (!held) {
        const connector = await openConnector(config);
        try {
          await connector.provision();
        } catch (err) {
          await connector.close().catch(() => {});
          throw err;
        }
        held = { connector, version };
        connectors.set(name, held);
      }
      const renew = setInterval(() => {
        opts.pool
          .query("UPDATE source SET locked_until = now() + $2 * interval '1 millisecond' WHERE name = $1 AND locked_by = $3", [
            name,
            leaseMs,
            id,
          ])
          .catch(() => {});
      }, leaseMs / 3);
      try {
        const counts = await pullSource(opts.pool, { name, type: config.type, kind: config.kind }, held.connector, {
          waitMs: opts.waitMs ?? 1000,
          actor,
          requestId: null,
          clock,
          signal: opts.signal,
          yieldTo: () => opts.turns.wanted(name),
        });
        if (counts.pulled > 0) {
          opts.log(
            `source ${name}: pulled ${counts.pulled} (${counts.created} new, ${counts.duplicates} known, ${counts.unreadable} unreadable)`,
          );
        }
        const waiting = await held.connector.waiting().catch(() => null);
        await opts.pool.query(
          `UPDATE source SET connected = true, waiting = $2, waiting_at = now(), last_error = NULL, failures = 0, failing_since = NULL, next_attempt_at = NULL
           WHERE name = $1`,
          [name, waiting],
        );
      } finally {
        clearInterval(renew);
      }
      await release(name);
    } catch (err) {
      await closeConnector(name);
      await fail(name, err);
    }
  }

  const done = (async () => {
    while (!opts.signal.aborted) {
      let worked = false;
      try {
        worked = await round();
      } catch (err) {
        opts.log(`sources: ${(err as Error).message}`);
      }
      if (!worked) await sleep(opts.pollMs ?? 1000, opts.signal).catch(() => {});
    }
    await Promise.all([...connectors.keys()].map(closeConnector));
  })();
  return { done };
}
