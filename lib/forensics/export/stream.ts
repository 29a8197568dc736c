import type pg from "pg";
import type { ListFilter } from "../../dead-letters/filters";
import { buildWhere } from "../../dead-letters/where";
import type { MaskRules } from "../../masking/rules";
import type { ExportFormat } from "../schemas";
import { csvHeader, csvLine, geojsonFeatures, GEOJSON_HEAD, GEOJSON_TAIL, ndjsonLine, type ExportRow } from "./format";

// Streams the records matching a list filter through a server-side cursor: one REPEATABLE READ transaction (so
// the export is one consistent snapshot and its count is exact), FETCH BATCH rows at a time, the next batch
// fetched while the current one is formatted. Memory holds two batches whatever the export's size; the HTTP
// route and the CLI consume the same ReadableStream, and a client that goes away cancels the cursor.

export const BATCH = 1_000;

export interface ExportStats {
  records: number;
  /** records with nothing to write in this format (NDJSON: no envelope left after purge or retention) */
  skipped: number;
  bytes: number;
  completed: boolean;
}

export interface ExportOptions {
  format: ExportFormat;
  filter: ListFilter;
  mask: MaskRules | null;
  /** called once, when the stream ends, fails or is cancelled */
  onEnd?: (stats: ExportStats, error: unknown) => Promise<void> | void;
  batchSize?: number;
}

const BASE = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.entity_key, d.event_id, d.device_id, d.source_message_id,
  to_char(d.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS observed_at,
  to_char(d.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first_seen_at, d.status::text AS status, d.failure_class::text AS failure_class, d.class_reason,
  d.first_failure_reason, d.reason, d.reason_group, d.replay_count, d.failure_count, d.analysis->>'outcome' AS outcome`;

/** Only what each format writes: jsonb comes as text (no parse, no re-stringify). */
const FORMAT_COLUMNS: Record<ExportFormat, string> = {
  ndjson: `d.raw_envelope,
    CASE WHEN d.kind = 'afc' THEN EXISTS (SELECT 1 FROM failure_attempt f WHERE f.dead_letter_id = d.id AND f.attempt = 1
      AND f.origin = 'capture') END AS captured,
    NULL::text AS payload, NULL::text AS geometry, NULL::text AS properties, NULL::text AS repaired_geometry`,
  csv: `NULL::text AS raw_envelope, NULL::boolean AS captured, d.payload::text AS payload, NULL::text AS geometry,
    NULL::text AS properties, NULL::text AS repaired_geometry`,
  geojson: `NULL::text AS raw_envelope, NULL::boolean AS captured, NULL::text AS payload, (d.payload->'geometry')::text AS geometry,
    (d.payload->'properties')::text AS properties, d.repaired_geometry::text AS repaired_geometry`,
};

export function exportQuery(format: ExportFormat, filter: ListFilter): { text: string; values: unknown[] } {
  // GeoJSON holds spatial records only: an AFC tap has no geometry to draw.
  const f = format === "geojson" ? { ...filter, kind: ["spatial" as const] } : filter;
  const impossible = format === "geojson" && filter.kind !== undefined && !filter.kind.includes("spatial");
  const where = buildWhere(f);
  // id order is ingest order: a re-import into an empty database stores the records in the same order.
  return {
    text: `SELECT ${BASE}, ${FORMAT_COLUMNS[format]} FROM dead_letter d WHERE ${impossible ? "FALSE" : where.text} ORDER BY d.id`,
    values: impossible ? [] : where.values,
  };
}

function formatBatch(format: ExportFormat, rows: ExportRow[], mask: MaskRules | null, stats: ExportStats): string {
  let out = "";
  for (const r of rows) {
    if (format === "ndjson") {
      const line = ndjsonLine(r, mask);
      if (line === null) stats.skipped++;
      else {
        out += `${line}\n`;
        stats.records++;
      }
    } else if (format === "csv") {
      out += csvLine(r, mask);
      stats.records++;
    } else {
      // features joined by ",\n"; the stream puts the separator between batches
      for (const f of geojsonFeatures(r, mask)) out += (out === "" ? "" : ",\n") + f;
      stats.records++;
    }
  }
  return out;
}

export function exportStream(pool: pg.Pool, opts: ExportOptions): { stream: ReadableStream<Uint8Array>; stats: ExportStats } {
  const stats: ExportStats = { records: 0, skipped: 0, bytes: 0, completed: false };
  const size = opts.batchSize ?? BATCH;
  const encoder = new TextEncoder();
  let client: pg.PoolClient | null = null;
  let next: Promise<ExportRow[]> | null = null;
  let ended = false;
  let wroteFeature = false;

  const fetchBatch = (c: pg.PoolClient) => c.query<ExportRow>(`FETCH ${size} FROM redrive_export`).then((r) => r.rows);

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
    const q = exportQuery(opts.format, opts.filter);
    await client.query(`DECLARE redrive_export NO SCROLL CURSOR FOR ${q.text}`, q.values);
    next = fetchBatch(client);
    if (opts.format === "csv") emit(controller, csvHeader());
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
