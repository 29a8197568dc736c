import "server-only";
import type pg from "pg";
import type { ListFilter } from "../../dead-letters/filters";
import { AUDIT_ACTION } from "../../dead-letters/decisions";
import { buildWhere } from "../../dead-letters/query/where";
import type { RecordScope } from "../../scope/record-scope";
import type { MaskRules } from "../../masking/rules";
import type { ExportFormat } from "../forensics-schemas";
import {
  csvHeader,
  csvLine,
  geojsonFeatures,
  GEOJSON_HEAD,
  GEOJSON_TAIL,
  ndjsonLine,
  type CsvRow,
  type GeojsonRow,
  type NdjsonRow,
} from "./format";
import { utcMicrosSql } from "../../time/instant";
import { UNREADABLE_CLASS_REASON } from "../../dead-letters/ingest/pulled-message";
import { AppError } from "../../errors/app-error";
import { lastReplaySql, SENT_GEOMETRY_SQL } from "../../dead-letters/query/last-replay";

// Streams the records matching a list filter through a server-side cursor: one REPEATABLE READ transaction (so
// the export is one consistent snapshot and its count is exact), FETCH BATCH rows at a time, the next batch
// fetched while the current one is formatted. Memory holds two batches whatever the export's size; the HTTP
// route (run on an ingest thread: lib/api/off-thread-reads.ts) and the CLI consume the same ReadableStream, and a
// client that goes away cancels the cursor.

export const BATCH = 1_000;

export interface ExportStats {
  records: number;
  /** records with nothing to write in this format (NDJSON: no envelope left after purge or retention) */
  skipped: number;
  bytes: number;
  completed: boolean;
}

export type ExportOrder = "asc" | "desc";

export interface ExportOptions {
  /** the exporter's records (their teams') */
  scope: RecordScope;
  format: ExportFormat;
  filter: ListFilter;
  /** by observation time as the list sorts (default desc, the list's) */
  order?: ExportOrder;
  /** CSV: a UTF-8 byte-order mark first, for Excel */
  excel?: boolean;
  mask: MaskRules | null;
  /** called once, when the stream ends, fails or is cancelled */
  onEnd?: (stats: ExportStats, error: unknown) => Promise<void> | void;
  batchSize?: number;
}

/** "method/policy" of the approval's pin, kept through the replay (what was approved stays on the record). */
const APPROVED_REPAIR_SQL = `CASE WHEN d.status IN ('approved', 'replayed') THEN (d.approved_repair->>'method') || '/' || (d.approved_repair->>'policy') END`;
/** The triage rule whose decision the record's status is (as the detail's decidedBy), as one line of text. */
const DECIDED_BY_SQL = `CASE WHEN d.decided_by_rule_id IS NOT NULL AND d.status IN ('approved', 'quarantined', 'replayed') THEN
  (SELECT 'rule ' || r.name || ' v' || v.version || ' (approved by ' || coalesce(v.drafted_by_email, v.drafted_by_id, 'unknown') || ' and '
     || coalesce(v.approved_by_email, v.approved_by_id, 'unknown') || ')'
   FROM rule r JOIN rule_version v ON v.rule_id = r.id AND v.version = d.decided_by_rule_version WHERE r.id = d.decided_by_rule_id) END`;
/** "method/policy" an item was sent with (null: AFC, or sent before items kept it). */
const REPLAY_REPAIR_SQL = `(i.sent->>'method') || '/' || (i.sent->>'policy')`;

/**
 * Only the columns each format writes, jsonb as text (no parse, no re-stringify). Reading rows is most of an
 * export's cost, and node-postgres's cost grows with the columns: an NDJSON export fetching all of the CSV's
 * columns would read rows markedly slower than with its own (scripts/bench-export.ts).
 */
const FORMAT_COLUMNS: Record<ExportFormat, string> = {
  ndjson: `d.kind, d.source, d.idempotency_key, d.failure_class::text AS failure_class, d.first_failure_reason, d.failure_count,
    ${utcMicrosSql("d.first_seen_at")} AS first_seen_at, d.raw_envelope, d.origin_source IS NOT NULL AS pulled,
    d.origin_source IS NOT NULL AND d.class_reason = '${UNREADABLE_CLASS_REASON.replaceAll("'", "''")}' AS unreadable,
    CASE WHEN d.kind = 'afc' THEN EXISTS (SELECT 1 FROM failure_attempt f WHERE f.dead_letter_id = d.id AND f.attempt = 1
      AND f.origin = 'capture') END AS captured`,
  csv: `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.entity_key, d.event_id, d.device_id, d.source_message_id,
    ${utcMicrosSql("d.observed_at")} AS observed_at, ${utcMicrosSql("d.first_seen_at")} AS first_seen_at, d.status::text AS status,
    d.failure_class::text AS failure_class, d.class_reason, d.first_failure_reason, d.reason, d.reason_group, d.replay_count,
    d.failure_count, d.analysis->>'outcome' AS outcome, d.payload::text AS payload, ${APPROVED_REPAIR_SQL} AS approved_repair,
    ${lastReplaySql("i.batch_id::text")} AS replay_batch_id, ${lastReplaySql(REPLAY_REPAIR_SQL)} AS replay_repair,
    ${DECIDED_BY_SQL} AS decided_by`,
  geojson: `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.status::text AS status, d.failure_class::text AS failure_class,
    d.reason, ${utcMicrosSql("d.observed_at")} AS observed_at, d.analysis->>'outcome' AS outcome, (d.payload->'geometry')::text AS geometry,
    (d.payload->'properties')::text AS properties, d.repaired_geometry::text AS repaired_geometry,
    CASE WHEN EXISTS (SELECT 1 FROM audit_event a WHERE a.target_type = 'dead_letter' AND a.target_id = d.id::text
      AND a.action = '${AUDIT_ACTION.edit}') THEN d.raw_envelope END AS received_envelope,
    ${APPROVED_REPAIR_SQL} AS approved_repair, (d.analysis->>'method') || '/' || (d.analysis->>'policy') AS analysis_repair,
    ${lastReplaySql(`jsonb_build_object('batch_id', i.batch_id::text, 'repair', ${REPLAY_REPAIR_SQL}, 'from', i.sent->>'from')::text`)} AS replay,
    ${lastReplaySql(`(${SENT_GEOMETRY_SQL})::text`)} AS replay_geometry, ${DECIDED_BY_SQL} AS decided_by`,
};

/**
 * The records a format exports: the filter's, except that GeoJSON holds spatial records only (an AFC tap has no
 * geometry to draw). Null when the format can hold none of the filter's records (GeoJSON of kind=afc).
 */
export function exportFilter(format: ExportFormat, filter: ListFilter): ListFilter | null {
  if (format !== "geojson") return filter;
  if (filter.kind !== undefined && !filter.kind.includes("spatial")) return null;
  return { ...filter, kind: ["spatial"] };
}

export function exportQuery(
  format: ExportFormat,
  scope: RecordScope,
  filter: ListFilter,
  order: ExportOrder = "desc",
): { text: string; values: unknown[] } {
  const f = exportFilter(format, filter);
  const where = f === null ? { text: "FALSE", values: [] } : buildWhere(scope, f);
  // The list's order (lib/dead-letters/query/list.ts): the file reads as the page the export was made from.
  return {
    text: `SELECT ${FORMAT_COLUMNS[format]} FROM dead_letter d WHERE ${where.text} ORDER BY d.observed_at ${order}, d.id ${order}`,
    values: where.values,
  };
}

/**
 * Refuses an export that could only be empty because of its format: GeoJSON of a filter without spatial records
 * would download a file with no features and look like a success.
 */
export async function assertExportable(pool: pg.Pool, scope: RecordScope, format: ExportFormat, filter: ListFilter): Promise<void> {
  if (format !== "geojson") return;
  const f = exportFilter(format, filter);
  const where = f === null ? null : buildWhere(scope, f);
  const any =
    where === null
      ? false
      : (await pool.query(`SELECT EXISTS (SELECT 1 FROM dead_letter d WHERE ${where.text}) AS any`, where.values)).rows[0]?.any === true;
  if (!any) {
    throw new AppError(
      "validation_failed",
      "no spatial records match this filter: GeoJSON holds spatial records only (try CSV or NDJSON)",
      {
        issues: [{ path: "format", message: "no spatial records match this filter" }],
      },
    );
  }
}

/** The byte-order mark Excel needs to read a CSV as UTF-8. */
export const UTF8_BOM = "\uFEFF";

/** Rows as exportQuery(format) selects them: the cast is where the SQL above meets the row types. */
function formatBatch(format: ExportFormat, rows: pg.QueryResultRow[], mask: MaskRules | null, stats: ExportStats): string {
  let out = "";
  if (format === "ndjson") {
    for (const r of rows as NdjsonRow[]) {
      const line = ndjsonLine(r, mask);
      if (line === null) stats.skipped++;
      else {
        out += `${line}\n`;
        stats.records++;
      }
    }
  } else if (format === "csv") {
    for (const r of rows as CsvRow[]) out += csvLine(r, mask);
    stats.records += rows.length;
  } else {
    // features joined by ",\n"; the stream puts the separator between batches
    for (const r of rows as GeojsonRow[]) for (const f of geojsonFeatures(r, mask)) out += (out === "" ? "" : ",\n") + f;
    stats.records += rows.length;
  }
  return out;
}

export function exportStream(pool: pg.Pool, opts: ExportOptions): { stream: ReadableStream<Uint8Array>; stats: ExportStats } {
  const stats: ExportStats = { records: 0, skipped: 0, bytes: 0, completed: false };
  const size = opts.batchSize ?? BATCH;
  const encoder = new TextEncoder();
  let client: pg.PoolClient | null = null;
  let next: Promise<pg.QueryResultRow[]> | null = null;
  let ended = false;
  let wroteFeature = false;

  const fetchBatch = (c: pg.PoolClient) => c.query(`FETCH ${size} FROM redrive_export`).then((r) => r.rows);

  async function finish(error: unknown): Promise<void> {
    if (ended) return;
    ended = true;
    const c = client;
    client = null;
    if (c) {
      // A fetch may still be in flight (cancelled mid-batch): let it settle before ending the transaction.
      await next?.catch(() => {});
      await c.query(error === null ? "COMMIT" : "ROLLBACK").catch(() => {});
      c.release();
    }
    stats.completed = error === null;
    await opts.onEnd?.(stats, error);
  }

  const emit = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
    if (text === "") return;
    const bytes = encoder.encode(text);
    stats.bytes += bytes.length;
    controller.enqueue(bytes);
  };

  /** Opens the snapshot and the cursor on the first read, so a response nobody reads holds no connection. */
  async function open(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    client = await pool.connect();
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const q = exportQuery(opts.format, opts.scope, opts.filter, opts.order);
    await client.query(`DECLARE redrive_export NO SCROLL CURSOR FOR ${q.text}`, q.values);
    next = fetchBatch(client);
    if (opts.format === "csv") emit(controller, `${opts.excel ? UTF8_BOM : ""}${csvHeader()}`);
    if (opts.format === "geojson") emit(controller, GEOJSON_HEAD);
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!client && !ended) await open(controller);
          // Loop until something is enqueued: a pull that enqueues nothing is not called again by the stream.
          while (client && next) {
            const rows = await next;
            if (rows.length === 0) {
              if (opts.format === "geojson") emit(controller, GEOJSON_TAIL);
              await finish(null);
              controller.close();
              return;
            }
            next = rows.length < size ? Promise.resolve([]) : fetchBatch(client);
            next.catch(() => {}); // surfaced by the next round
            const text = formatBatch(opts.format, rows, opts.mask, stats);
            if (text === "") continue;
            emit(controller, opts.format === "geojson" && wroteFeature ? `,\n${text}` : text);
            wroteFeature = true;
            return;
          }
        } catch (err) {
          await finish(err);
          controller.error(err);
        }
      },
      async cancel(reason) {
        await finish(reason ?? new Error("export cancelled"));
      },
    },
    // No read-ahead at the stream level: pull runs only when the consumer reads (the next batch is prefetched
    // from the cursor instead, above).
    { highWaterMark: 0 },
  );
  return { stream, stats };
}
