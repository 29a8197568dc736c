import type pg from "pg";
import { normalizeAfcRecord } from "../../afc/envelope";
import { isJsonObject, parseLossless } from "../../afc/json";
import type { Actor } from "../../audit/append";
import { normalizeSpatialEnvelope } from "../../spatial/envelope";
import { getGeos } from "../../spatial/geos";
import { keyOf, storeDeadLetters } from "../store";
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

/**
 * Stores normalized records in one transaction and returns results in input order. `order` keeps overlapping
 * stores of one stream in input order (StoreContext): take ids after `idsAfter`, then signal `idsTaken`; append
 * to the audit chain and commit only once `after` (the previous batch's store) has succeeded.
 */
export async function storeBatch(
  pool: pg.Pool,
  batch: Normalized[],
  now: Date,
  opts: IngestOptions,
  order: { after?: Promise<unknown>; idsAfter?: Promise<unknown>; idsTaken?: () => void } = {},
): Promise<IngestResult[]> {
  try {
    return await storeInOrder(pool, batch, now, opts, order);
  } finally {
    order.idsTaken?.(); // also when nothing was stored or the store failed: the next batch must not wait for ever
  }
}

async function storeInOrder(
  pool: pg.Pool,
  batch: Normalized[],
  now: Date,
  opts: IngestOptions,
  { after, idsAfter, idsTaken }: { after?: Promise<unknown>; idsAfter?: Promise<unknown>; idsTaken?: () => void },
): Promise<IngestResult[]> {
  const good = batch.filter((n): n is Extract<Normalized, { ok: true }> => n.ok);
  const stored = new Map<number, IngestResult>();
  if (good.length === 0) await after; // nothing to store, but report nothing before the batches ahead are in
  if (good.length) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // A store may wait (outside PostgreSQL's deadlock detector) for the previous batch of its stream; should
      // that one wait on a concurrent request that waits on us, the lock timeout breaks the cycle with an error
      // instead of a hang. Keys go in sorted (store.ts) to make such cycles rare in the first place.
      await client.query("SET LOCAL lock_timeout = '30s'");
      const outcomes = await storeDeadLetters(client, good.map((g) => g.record), {
        now, actor: opts.actor, requestId: opts.requestId, origin: opts.origin ?? "ingest",
        ...(after ? { after } : {}), ...(idsAfter ? { idsAfter } : {}), ...(idsTaken ? { idsTaken } : {}),
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

/** The dedup keys of a batch's storable records (kind + key), to keep concurrent stores on disjoint keys. */
function keysOf(batch: Normalized[]): Set<string> {
  const keys = new Set<string>();
  for (const n of batch) {
    const key = n.ok ? keyOf(n.record) : null;
    if (key !== null) keys.add(key);
  }
  return keys;
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const k of small) if (large.has(k)) return true;
  return false;
}

/** How many store transactions may be in flight: one commits while the next one's rows go in. */
const STORES_IN_FLIGHT = 2;

/**
 * Normalizes and stores a stream of records, yielding each stored batch's results in input order. Storing is
 * mostly PostgreSQL's work (index maintenance, on another core), so the next batch is normalized meanwhile and
 * up to STORES_IN_FLIGHT batches are stored concurrently: a batch's rows go in while the one before commits.
 * Commits stay in input order (each store waits for the previous one before its audit events and commit, see
 * StoreContext.after), so a failure still means "nothing from this batch on was stored". A batch that shares
 * a key with a batch in flight waits for it to finish first: the earlier record must be the one created, the
 * later one its repeat, as if the batches ran one after another — and were the later batch's insert of that key
 * to land first, the earlier batch would wait for it inside PostgreSQL while it waits for the earlier one here,
 * for ever. At most STORES_IN_FLIGHT + 1 batches are in memory at a time.
 */
export async function* ingestStream(
  pool: pg.Pool,
  records: AsyncIterable<RecordText>,
  opts: IngestOptions,
): AsyncGenerator<IngestResult[]> {
  const clock = opts.clock ?? (() => new Date());
  const size = opts.batchSize ?? 500;
  let batch: Normalized[] = [];
  const inFlight: { keys: Set<string>; done: Promise<IngestResult[]> }[] = [];
  let idsAfter: Promise<void> = Promise.resolve();
  const start = (b: Normalized[], keys: Set<string>) => {
    let idsTaken = () => {};
    const taken = new Promise<void>((resolve) => (idsTaken = resolve));
    const done = storeBatch(pool, b, clock(), opts, { after: inFlight.at(-1)?.done, idsAfter, idsTaken });
    idsAfter = taken;
    // A rejected store surfaces when awaited; keep Node from reporting it as unhandled meanwhile.
    done.catch(() => {});
    inFlight.push({ keys, done });
  };
  async function* submit(b: Normalized[]): AsyncGenerator<IngestResult[]> {
    const keys = keysOf(b);
    // Oldest first, so results keep input order: wait while the pipeline is full or an in-flight batch shares a key.
    while (inFlight.length >= STORES_IN_FLIGHT || inFlight.some((f) => overlaps(f.keys, keys))) {
      yield await (inFlight.shift() as (typeof inFlight)[number]).done;
    }
    start(b, keys);
  }
  for await (const rec of records) {
    batch.push(await normalizeRecord(rec, clock(), opts));
    if (batch.length >= size) {
      yield* submit(batch);
      batch = [];
    }
  }
  if (batch.length) yield* submit(batch);
  while (inFlight.length) yield await (inFlight.shift() as (typeof inFlight)[number]).done;
}
