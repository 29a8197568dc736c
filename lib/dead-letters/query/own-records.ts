import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import type { MaskRules } from "../../masking/rules";
import { utcMicrosSql, utcMillisSql } from "../../time/instant";
import type { OwnRecord, OwnRecordsPage, OwnRecordsQuery } from "../contract/own-records";
import { decodeCursor, encodeCursor } from "./cursor";
import { maskReason } from "./mask-list";

// What a producer sent (dead_letter.ingested_by = its user id): the outcome of each record and counts by status
// and reason. Never the payload or the envelope: a producer has them, and what Redrive shows of them is for triage.
// Served masked to every reader (a producer never holds dead_letters:unmask).

const COLUMNS = `d.id::text AS id, d.kind, d.idempotency_key, d.status, d.failure_class, d.reason, d.failure_count,
  ${utcMicrosSql("d.observed_at")} AS observed_at, ${utcMillisSql("d.first_seen_at")} AS received_at`;

interface Row {
  id: string;
  kind: OwnRecord["kind"];
  idempotency_key: string | null;
  status: OwnRecord["status"];
  failure_class: OwnRecord["failureClass"];
  reason: string;
  failure_count: number;
  observed_at: string;
  received_at: string;
}

function toRecord(r: Row, rules: MaskRules | null): OwnRecord {
  return {
    id: r.id,
    kind: r.kind,
    // a producer's key can be a card number too (free-text rule, as the answer's last pass would)
    idempotencyKey: r.idempotency_key === null ? null : maskReason(r.idempotency_key, rules),
    status: r.status,
    failureClass: r.failure_class,
    reason: maskReason(r.reason, rules),
    failureCount: r.failure_count,
    observedAt: r.observed_at,
    receivedAt: r.received_at,
  };
}

/** The caller's records, newest observation first (keyset pages on dead_letter_ingested_by_idx), with counts. */
export async function listOwnRecords(pool: pg.Pool, userId: string, q: OwnRecordsQuery, rules: MaskRules | null): Promise<OwnRecordsPage> {
  const params: unknown[] = [userId];
  const where = ["d.ingested_by = $1"];
  if (q.status) {
    params.push(q.status);
    where.push(`d.status = $${params.length}::"DeadLetterStatus"`);
  }
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    params.push(c.observedAt, c.id);
    where.push(`(d.observed_at, d.id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  params.push(q.limit + 1);
  const [page, status, reason] = await Promise.all([
    pool.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letter d WHERE ${where.join(" AND ")}
       ORDER BY d.observed_at DESC, d.id DESC LIMIT $${params.length}`,
      params,
    ),
    pool.query<{ value: string; count: number }>(
      `SELECT status::text AS value, count(*)::int AS count FROM dead_letter WHERE ingested_by = $1
       GROUP BY status ORDER BY count DESC, value`,
      [userId],
    ),
    pool.query<{ value: string; count: number }>(
      `SELECT reason_group AS value, count(*)::int AS count FROM dead_letter WHERE ingested_by = $1
       GROUP BY reason_group ORDER BY count DESC, value LIMIT 20`,
      [userId],
    ),
  ]);
  const rows = page.rows.slice(0, q.limit);
  const last = rows.at(-1);
  return {
    items: rows.map((r) => toRecord(r, rules)),
    nextCursor: page.rows.length > q.limit && last ? encodeCursor({ observedAt: last.observed_at, id: last.id }) : null,
    counts: {
      total: status.rows.reduce((n, r) => n + r.count, 0),
      status: status.rows,
      reason: reason.rows.map((r) => ({ value: maskReason(r.value, rules), count: r.count })),
    },
  };
}

/** One of the caller's records; 404 for a record someone else sent (whether it exists is not the caller's to know). */
export async function readOwnRecord(pool: pg.Pool, userId: string, id: string, rules: MaskRules | null): Promise<OwnRecord> {
  const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM dead_letter d WHERE d.id = $1 AND d.ingested_by = $2`, [id, userId]);
  const row = rows[0];
  if (!row) throw new AppError("not_found", `dead letter ${id} not found among the records you sent`);
  return toRecord(row, rules);
}
