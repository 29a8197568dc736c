import type pg from "pg";
import { decodeCursor, encodeCursor } from "./cursor";
import type { ListQuery } from "./filters";
import { buildWhere } from "./where";

export interface DeadLetterSummary {
  id: string;
  kind: "spatial" | "afc";
  source: string;
  idempotencyKey: string | null;
  eventId: string | null;
  deviceId: string | null;
  reason: string;
  reasonGroup: string;
  failureClass: "transient" | "transient_schema" | "poison";
  classReason: string | null;
  status: "pending" | "approved" | "quarantined" | "replayed" | "purged";
  observedAt: string;
  replayCount: number;
  failureCount: number;
  version: number;
  /** spatial only: the repair outcome (valid | repaired | dropped) */
  outcome: string | null;
}

export interface ListPage {
  items: DeadLetterSummary[];
  nextCursor: string | null;
}

const COLUMNS = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.event_id, d.device_id, d.reason,
  d.reason_group, d.failure_class, d.class_reason, d.status, d.observed_at, d.replay_count, d.failure_count,
  d.version, d.analysis->>'outcome' AS outcome`;

interface Row {
  id: string;
  kind: DeadLetterSummary["kind"];
  source: string;
  idempotency_key: string | null;
  event_id: string | null;
  device_id: string | null;
  reason: string;
  reason_group: string;
  failure_class: DeadLetterSummary["failureClass"];
  class_reason: string | null;
  status: DeadLetterSummary["status"];
  observed_at: Date;
  replay_count: number;
  failure_count: number;
  version: number;
  outcome: string | null;
}

function toSummary(r: Row): DeadLetterSummary {
  return {
    id: r.id,
    kind: r.kind,
    source: r.source,
    idempotencyKey: r.idempotency_key,
    eventId: r.event_id,
    deviceId: r.device_id,
    reason: r.reason,
    reasonGroup: r.reason_group,
    failureClass: r.failure_class,
    classReason: r.class_reason,
    status: r.status,
    observedAt: r.observed_at.toISOString(),
    replayCount: r.replay_count,
    failureCount: r.failure_count,
    version: r.version,
    outcome: r.outcome,
  };
}

/** One page of the list, newest (or oldest) observation first, by keyset over (observed_at, id). */
export async function listDeadLetters(db: pg.Pool | pg.PoolClient, query: ListQuery): Promise<ListPage> {
  const values: unknown[] = [];
  const where = buildWhere(query, values);
  const clauses = [where.text];
  const dir = query.order === "asc" ? ">" : "<";
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    values.push(c.observedAt, c.id);
    clauses.push(`(d.observed_at, d.id) ${dir} ($${values.length - 1}::timestamptz, $${values.length}::bigint)`);
  }
  values.push(query.limit + 1);
  const order = query.order === "asc" ? "ASC" : "DESC";
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM dead_letter d WHERE ${clauses.join(" AND ")}
     ORDER BY d.observed_at ${order}, d.id ${order} LIMIT $${values.length}`,
    values,
  );
  const items = rows.slice(0, query.limit).map(toSummary);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > query.limit && last ? encodeCursor({ observedAt: last.observedAt, id: last.id }) : null,
  };
}
