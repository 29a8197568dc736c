import "server-only";
import type pg from "pg";
import { appendAudit } from "../audit/append";
import { auditActor, SYSTEM_ACTOR, type Actor } from "../audit/actor";
import { inTransaction } from "../db/transaction";

// Retention of payload bodies: a record that is settled (replayed) or purged keeps its identity, hash, reasons
// and timeline forever, but its payload, raw envelope and repaired geometry only for `days` after it reached
// that status (updated_at: both statuses are final, nothing updates the row afterwards). The keep-evidence
// trigger allows raw_envelope to become NULL and nothing else.
//
// Bounded: at most maxPages pages of PAGE records per run, each page its own short transaction, rows claimed
// with SKIP LOCKED so two processes running maintenance share the work instead of waiting on each other. The
// queue is the partial index dead_letter_retention_idx: a stripped row leaves it, so a run never re-reads
// what an earlier run did.

export const PAGE = 500;
export const DEFAULT_MAX_PAGES = 20;

export interface RetentionResult {
  stripped: number;
  /** more records were due than this run's bound: the next run continues */
  more: boolean;
}

export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

export async function runRetention(
  pool: pg.Pool,
  now: Date,
  days: number,
  opts: { maxPages?: number; actor?: Actor } = {},
): Promise<RetentionResult> {
  const cutoff = retentionCutoff(now, days);
  const actor = opts.actor ?? SYSTEM_ACTOR;
  let stripped = 0;
  for (let page = 0; page < (opts.maxPages ?? DEFAULT_MAX_PAGES); page++) {
    const n = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string; status: string; settled_at: Date }>(
        // ORDER BY the table's columns (d.…), not the output's text aliases: sorting by those walked every row.
        `SELECT d.id::text AS id, d.status::text AS status, d.updated_at AS settled_at FROM dead_letter d
         WHERE d.status IN ('replayed', 'purged') AND d.updated_at < $1 AND (d.payload IS NOT NULL OR d.raw_envelope IS NOT NULL)
         ORDER BY d.status, d.updated_at, d.id LIMIT ${PAGE} FOR UPDATE SKIP LOCKED`,
        [cutoff],
      );
      if (rows.length === 0) return 0;
      await client.query(
        // updated_at stays the time the record was settled: the archive horizon counts from it (lib/ops/archive.ts),
        // and a strip is not a decision. The strip's own time is its audit event's.
        `UPDATE dead_letter SET payload = NULL, raw_envelope = NULL, repaired_geometry = NULL, version = version + 1
         WHERE id = ANY($1::bigint[])`,
        [rows.map((r) => r.id)],
      );
      await appendAudit(
        client,
        rows.map((r) => ({
          ...auditActor(actor),
          action: "dead_letter.retention_applied",
          targetType: "dead_letter",
          targetId: r.id,
          before: { status: r.status, settledAt: r.settled_at.toISOString() },
          after: { payload: null, rawEnvelope: null, retentionDays: days },
        })),
        now,
      );
      return rows.length;
    });
    stripped += n;
    if (n < PAGE) return { stripped, more: false };
  }
  return { stripped, more: true };
}
