import "server-only";
import { paramsOf, scopeSql, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { utcMicrosSql } from "../../time/instant";
import { AUDIT_ACTION } from "../decisions";
import type { DeadLetterDetail } from "../contract/detail";
import { toDetail, type DetailRow, type FailureRow } from "./detail-row";
import { lastReplaySql, SENT_GEOMETRY_SQL } from "./last-replay";
import { HEAVY_COLUMNS, HEAVY_DETAIL_BYTES, type HeavyColumn, type HeavyTexts } from "./detail-answer";

export { toDetail, type DetailRow } from "./detail-row";

// One dead letter with everything the detail page shows: the raw envelope as received, the working payload,
// the analysis and repaired geometry, and every failure attempt in order.

type Db = pg.Pool | pg.ClientBase;

/** A sent geometry past this (as stored) is left out of the answer (geometryOmitted): the request thread parses it. */
const SENT_GEOMETRY_MAX_BYTES = 256 * 1024;

/** The latest replay that reached its sink: batch, sink, the repair it was sent with and the geometry sent. */
const LAST_REPLAY_SQL = lastReplaySql(`jsonb_build_object('batchId', i.batch_id::text, 'itemId', i.id::text, 'outcome', i.status::text,
    'sink', b.sink->>'type', 'submittedAt', to_char(i.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'repair', i.sent - 'geometry',
    'geometry', CASE WHEN pg_column_size(${SENT_GEOMETRY_SQL}) <= ${SENT_GEOMETRY_MAX_BYTES} THEN ${SENT_GEOMETRY_SQL} END,
    'geometryOmitted', coalesce(pg_column_size(${SENT_GEOMETRY_SQL}) > ${SENT_GEOMETRY_MAX_BYTES}, false))`);

/** The rule version that decided the record (dead_letter.decided_by_rule_*), with its drafter and approver. */
const DECIDED_BY_SQL = `(SELECT jsonb_build_object('rule', jsonb_build_object('id', r.id::text, 'name', r.name, 'version', v.version),
    'approvers', jsonb_build_array(coalesce(v.drafted_by_email, v.drafted_by_id, 'unknown'),
      coalesce(v.approved_by_email, v.approved_by_id, 'unknown')))
  FROM rule r JOIN rule_version v ON v.rule_id = r.id AND v.version = d.decided_by_rule_version WHERE r.id = d.decided_by_rule_id)`;

export const DETAIL_COLUMNS = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.entity_key, d.event_id, d.device_id,
  d.source_message_id, ${utcMicrosSql("d.observed_at")} AS observed_at, d.first_seen_at, d.last_failed_at, d.updated_at, d.raw_envelope, d.payload,
  d.first_failure_reason, d.reason, d.reason_group, d.failure_class, d.class_reason, d.status, d.replay_count,
  d.failure_count, d.version, d.analysis, d.repaired_geometry, d.approved_repair, d.origin,
  EXISTS (SELECT 1 FROM audit_event a WHERE a.target_type = 'dead_letter' AND a.target_id = d.id::text AND a.action = '${AUDIT_ACTION.edit}') AS edited,
  ${LAST_REPLAY_SQL} AS last_replay, ${DECIDED_BY_SQL} AS decided_by`;

/** The record, or null when there is none with this id. `lock` takes the row lock (inside a transaction). */
export async function readDetailRow(db: Db, id: string, lock = false): Promise<DetailRow | null> {
  const { rows } = await db.query<DetailRow>(`SELECT ${DETAIL_COLUMNS} FROM dead_letter d WHERE d.id = $1${lock ? " FOR UPDATE" : ""}`, [
    id,
  ]);
  return rows[0] ?? null;
}

/**
 * The record without its heavy columns when it is heavy (they come back null, and `heavy` says so): for a
 * decision that needs only its status and class (quarantine, reopen), whose answer is then built off this thread.
 */
export async function readLightDetailRow(db: Db, id: string, lock = false): Promise<(DetailRow & { heavy: boolean }) | null> {
  const { rows } = await db.query<DetailRow & { heavy: boolean }>(
    `SELECT ${LIGHT_COLUMNS}, s.heavy FROM dead_letter d, LATERAL (SELECT ${STORED_BYTES} > $2 AS heavy) s
     WHERE d.id = $1${lock ? " FOR UPDATE OF d" : ""}`,
    [id, HEAVY_DETAIL_BYTES],
  );
  return rows[0] ?? null;
}

export async function readFailures(db: Db, id: string): Promise<FailureRow[]> {
  const { rows } = await db.query<FailureRow>(
    `SELECT attempt, at, reason, origin, batch_id::text AS batch_id, also_sent_by FROM failure_attempt
     WHERE dead_letter_id = $1 ORDER BY attempt`,
    [id],
  );
  return rows;
}

export function notFound(id: string): AppError {
  return new AppError("not_found", `dead letter ${id} does not exist`, { issues: [{ path: "id", message: "no such dead letter" }] });
}

/**
 * Why a record id has no row: archived (settled past the archive horizon, lib/ops/archive.ts) and in the reader's
 * scope — 410 naming its timeline, which still answers — or absent (404, as outside the scope).
 */
export async function absentOrArchived(db: Db, scope: RecordScope, id: string): Promise<AppError> {
  const values: unknown[] = [id];
  const { rows } = await db.query<{ archived_at: Date }>(
    `SELECT a.archived_at FROM dead_letter_archive a WHERE a.id = $1 AND ${scopeSql(scope, paramsOf(values), "a")}`,
    values,
  );
  const archived = rows[0];
  if (!archived) return notFound(id);
  return new AppError(
    "gone",
    `dead letter ${id} was settled and moved to the archive on ${archived.archived_at.toISOString()}: its payload is gone; its timeline and lookup still answer`,
    { details: { archivedAt: archived.archived_at.toISOString(), timeline: `/api/dead-letters/${id}/timeline` } },
  );
}

export async function getDeadLetter(db: Db, id: string): Promise<DeadLetterDetail> {
  const [row, failures] = await Promise.all([readDetailRow(db, id), readFailures(db, id)]);
  if (!row) throw notFound(id);
  return toDetail(row, failures);
}

/** A record for a reader: whole when light; when heavy, only how heavy (it is read and built off this thread). */
export type ReaderRead = { heavy: false; detail: DeadLetterDetail } | { heavy: true; storedBytes: number };

// What the heavy columns occupy as stored (compressed, read from the TOAST pointers: nothing is detoasted here).
const STORED_BYTES = HEAVY_COLUMNS.map(
  (c) => `coalesce(${c === "raw_envelope" ? "octet_length" : "pg_column_size"}(d.${c}), 0)::bigint`,
).join(" + ");

const HEAVY_COLUMN = new RegExp(`\\bd\\.(${HEAVY_COLUMNS.join("|")})\\b`, "g");

/** DETAIL_COLUMNS with the heavy ones null where `s.heavy` (a lateral the query computes from STORED_BYTES). */
const LIGHT_COLUMNS = DETAIL_COLUMNS.replace(HEAVY_COLUMN, (_m, c: string) => `CASE WHEN s.heavy THEN NULL ELSE d.${c} END AS ${c}`);

/**
 * The record as GET /api/dead-letters/{id} and its page read it. A record whose heavy columns are past
 * HEAVY_DETAIL_BYTES (256 KB) stored (a 1,000,000-vertex polygon kept as poison: 12 MB of envelope and as much payload)
 * is not read here: receiving, parsing, masking and serializing it held the event loop for seconds.
 */
export async function readDetailForReader(db: Db, scope: RecordScope, id: string): Promise<ReaderRead> {
  const values: unknown[] = [id, HEAVY_DETAIL_BYTES];
  const [{ rows }, failures] = await Promise.all([
    db.query<DetailRow & { heavy: boolean; stored_bytes: string }>(
      `SELECT ${LIGHT_COLUMNS}, s.heavy, b.stored_bytes::text AS stored_bytes
       FROM dead_letter d, LATERAL (SELECT ${STORED_BYTES} AS stored_bytes) b, LATERAL (SELECT b.stored_bytes > $2 AS heavy) s
       WHERE d.id = $1 AND ${scopeSql(scope, paramsOf(values))}`,
      values,
    ),
    readFailures(db, id),
  ]);
  const r = rows[0];
  if (!r) throw await absentOrArchived(db, scope, id);
  const { heavy, stored_bytes, ...row } = r;
  return heavy ? { heavy: true, storedBytes: Number(stored_bytes) } : { heavy: false, detail: toDetail(row, failures) };
}

/** The record with its heavy columns as text (jsonb::text: parsed by the caller, not the driver), or null. */
export async function readHeavyDetailRow(
  db: Db,
  id: string,
): Promise<{ row: DetailRow; failures: FailureRow[]; texts: HeavyTexts } | null> {
  const columns = DETAIL_COLUMNS.replace(HEAVY_COLUMN, (_m, c: string) => `NULL AS ${c}, d.${c}::text AS ${c}_text`);
  const { rows } = await db.query<DetailRow & { [C in HeavyColumn as `${C}_text`]: string | null }>(
    `SELECT ${columns} FROM dead_letter d WHERE d.id = $1`,
    [id],
  );
  const r = rows[0];
  if (!r) return null;
  const { raw_envelope_text, payload_text, analysis_text, repaired_geometry_text, origin_text, ...row } = r;
  const texts: HeavyTexts = {
    raw_envelope: raw_envelope_text,
    payload: payload_text,
    analysis: analysis_text,
    repaired_geometry: repaired_geometry_text,
    origin: origin_text,
  };
  return { row, failures: await readFailures(db, id), texts };
}
