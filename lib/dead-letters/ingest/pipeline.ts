import type pg from "pg";
import { normalizeAfcRecord } from "../../afc/envelope";
import { isJsonObject, parseLossless } from "../../afc/json";
import type { Actor } from "../../audit/append";
import { normalizeSpatialEnvelope } from "../../spatial/envelope";
import { getGeos } from "../../spatial/geos";
import { storeDeadLetters } from "../store";
import type { FieldError, NewDeadLetter, RepairMethod, RepairPolicy } from "../types";
import type { RecordText } from "./split";

// ingest → classify/repair → store, for every entry point (POST /api/dead-letters, `redrive import`, the demo
// seed). Records are normalized one by one and stored in bounded batches, each batch one transaction, so
// memory stays flat whatever the input size and a failing record never takes others with it.

export type IngestResult =
  | { index: number; status: "created" | "duplicate"; id: string }
  | { index: number; status: "rejected"; errors: FieldError[] };

export interface SourceSettings {
  method: RepairMethod;
  policy: RepairPolicy;
  entityProperty?: string;
}

export interface IngestOptions {
  actor: Actor;
  requestId: string | null;
  clock?: () => Date;
  batchSize?: number;
  /** per-source repair settings; sources not listed use `defaults` */
  sources?: Map<string, SourceSettings>;
  defaults?: SourceSettings;
  origin?: "ingest" | "capture";
}

export const DEFAULT_SOURCE_SETTINGS: SourceSettings = { method: "linework", policy: "accept" };

export async function loadSourceSettings(pool: pg.Pool): Promise<Map<string, SourceSettings>> {
  const { rows } = await pool.query<{ source: string; repair_method: RepairMethod; repair_policy: RepairPolicy; entity_property: string | null }>(
    "SELECT source, repair_method, repair_policy, entity_property FROM source_config",
  );
  return new Map(
    rows.map((r) => [r.source, { method: r.repair_method, policy: r.repair_policy, ...(r.entity_property ? { entityProperty: r.entity_property } : {}) }]),
  );
}

type Normalized = { index: number; ok: true; record: NewDeadLetter } | { index: number; ok: false; errors: FieldError[] };

export async function normalizeRecord(rec: RecordText, now: Date, opts: IngestOptions): Promise<Normalized> {
  let value: unknown;
  try {
    value = parseLossless(rec.text);
  } catch (e) {
    return { index: rec.index, ok: false, errors: [{ path: "(root)", message: `not valid JSON: ${(e as Error).message}` }] };
  }
  if (!isJsonObject(value)) return { index: rec.index, ok: false, errors: [{ path: "(root)", message: "must be a JSON object" }] };
  const kind = value.kind;
  let result;
  if (kind === "spatial") {
    const source = typeof value.source === "string" ? value.source : "";
    const settings = opts.sources?.get(source) ?? opts.defaults ?? DEFAULT_SOURCE_SETTINGS;
    result = normalizeSpatialEnvelope(value, rec.text, { now, geos: await getGeos(), ...settings });
  } else if (kind === "afc") {
    result = normalizeAfcRecord(value, rec.text, { now });
  } else {
    return { index: rec.index, ok: false, errors: [{ path: "kind", message: 'must be "spatial" or "afc"' }] };
  }
  return result.ok ? { index: rec.index, ok: true, record: result.record } : { index: rec.index, ok: false, errors: result.errors };
}

/** Stores normalized records in one transaction and returns results in input order. */
export async function storeBatch(pool: pg.Pool, batch: Normalized[], now: Date, opts: IngestOptions): Promise<IngestResult[]> {
  const good = batch.filter((n): n is Extract<Normalized, { ok: true }> => n.ok);
  const stored = new Map<number, IngestResult>();
  if (good.length) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const outcomes = await storeDeadLetters(client, good.map((g) => g.record), {
        now, actor: opts.actor, requestId: opts.requestId, origin: opts.origin ?? "ingest",
      });
      await client.query("COMMIT");
      good.forEach((g, i) => {
        const o = outcomes[i];
        if (o) stored.set(g.index, { index: g.index, status: o.status, id: o.id });
      });
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  return batch.map((n) => (n.ok ? (stored.get(n.index) as IngestResult) : { index: n.index, status: "rejected" as const, errors: n.errors }));
}

/**
 * Normalizes and stores a stream of records, yielding each stored batch's results in input order. Storing a
 * batch is mostly waiting on PostgreSQL (another core), so the next batch is normalized meanwhile: one store
 * in flight at a time keeps batches in order and memory bounded.
 */
export async function* ingestStream(
  pool: pg.Pool,
  records: AsyncIterable<RecordText>,
  opts: IngestOptions,
): AsyncGenerator<IngestResult[]> {
  const clock = opts.clock ?? (() => new Date());
  const size = opts.batchSize ?? 500;
  let batch: Normalized[] = [];
  let inFlight: Promise<IngestResult[]> | null = null;
  for await (const rec of records) {
    batch.push(await normalizeRecord(rec, clock(), opts));
    if (batch.length >= size) {
      if (inFlight) yield await inFlight;
      inFlight = storeBatch(pool, batch, clock(), opts);
      // A rejected store surfaces when awaited; keep Node from reporting it as unhandled meanwhile.
      inFlight.catch(() => {});
      batch = [];
    }
  }
  if (inFlight) yield await inFlight;
  if (batch.length) yield await storeBatch(pool, batch, clock(), opts);
}
