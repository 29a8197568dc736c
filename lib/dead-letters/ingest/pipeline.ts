import "server-only";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { keyOf, storeDeadLetters, type CopyHint, type StoreContext } from "../store/write-records";
import type { FieldError, RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { DEFAULT_SOURCE_SETTINGS, normalizeRecord, type Normalized, type NormalizeSettings, type SourceSettings } from "./normalize";
import type { NormalizePool } from "./normalize-pool";
import { arrivalRules } from "../store/arrival-rules";
import type { RecordText } from "./split";

// ingest → classify/repair → store, for every entry point (POST /api/dead-letters, `redrive import`, the demo
// seed). Records are normalized (normalize.ts; on worker threads when given a NormalizePool) and stored in
// bounded batches, each batch one transaction, so memory stays flat whatever the input size and a failing
// record never takes others with it.

/**
 * `line`: an NDJSON record's line in the body, from 1 (the index counts records and skips blank lines). `key`: a
 * rejected envelope's idempotency key, when it has one. A duplicate of a record another sender stored answers
 * without its id (write-records.ts StoreOutcome).
 */
export type IngestResult =
  | { index: number; line?: number; status: "created"; id: string }
  | { index: number; line?: number; status: "duplicate"; id?: string }
  | { index: number; line?: number; status: "rejected"; errors: FieldError[]; key?: string };

export interface IngestOptions extends NormalizeSettings {
  actor: Actor;
  requestId: string | null;
  clock?: () => Date;
  batchSize?: number;
  origin?: "ingest" | "capture";
  /** worker threads for normalization (normalize-pool.ts); without one, records are normalized on this thread */
  normalizer?: NormalizePool | null;
}

export { DEFAULT_SOURCE_SETTINGS, type SourceSettings };

export async function loadSourceSettings(pool: pg.Pool): Promise<Map<string, SourceSettings>> {
  const { rows } = await pool.query<{
    source: string;
    repair_method: RepairMethod;
    repair_policy: RepairPolicy;
    entity_property: string | null;
  }>("SELECT source, repair_method, repair_policy, entity_property FROM source_config");
  return new Map(
    rows.map((r) => [
      r.source,
      { method: r.repair_method, policy: r.repair_policy, ...(r.entity_property ? { entityProperty: r.entity_property } : {}) },
    ]),
  );
}

/** How a batch's store fits in its stream (see storeBatch and StoreContext). */
type StoreOrder = Pick<StoreContext, "after" | "idsAfter" | "idsTaken" | "copyHint">;

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
  order: StoreOrder = {},
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
  order: StoreOrder,
): Promise<IngestResult[]> {
  const good = batch.filter((n): n is Extract<Normalized, { ok: true }> => n.ok);
  const stored = new Map<number, IngestResult>();
  if (good.length === 0) await order.after; // nothing to store, but report nothing before the batches ahead are in
  if (good.length) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // A store may wait (outside PostgreSQL's deadlock detector) for the previous batch of its stream; should
      // that one wait on a concurrent request that waits on us, the lock timeout breaks the cycle with an error
      // instead of a hang. Keys go in sorted (write-records.ts) to make such cycles rare in the first place.
      await client.query("SET LOCAL lock_timeout = '30s'");
      const outcomes = await storeDeadLetters(
        client,
        good.map((g) => g.record),
        {
          now,
          actor: opts.actor,
          requestId: opts.requestId,
          origin: opts.origin ?? "ingest",
          ...order,
        },
      );
      await client.query("COMMIT");
      good.forEach((g, i) => {
        const o = outcomes[i];
        if (!o) return;
        if (o.status === "created") stored.set(g.index, { index: g.index, status: "created", id: o.id });
        else
          stored.set(g.index, o.id === null ? { index: g.index, status: "duplicate" } : { index: g.index, status: "duplicate", id: o.id });
      });
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  return batch.map((n) =>
    n.ok
      ? (stored.get(n.index) as IngestResult)
      : { index: n.index, status: "rejected" as const, errors: n.errors, ...(n.key !== undefined ? { key: n.key } : {}) },
  );
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
  // Each NDJSON record's line, from when it is read until its result is given: at most the batches in flight.
  const lines = new Map<number, number>();
  async function* noted(): AsyncGenerator<RecordText> {
    for await (const rec of records) {
      if (rec.line !== undefined) lines.set(rec.index, rec.line);
      yield rec;
    }
  }
  for await (const results of ingestRecords(pool, noted(), opts)) {
    if (lines.size === 0) {
      yield results;
      continue;
    }
    yield results.map((r) => {
      const line = lines.get(r.index);
      if (line === undefined) return r;
      lines.delete(r.index);
      // index first, then line: the order the CLI prints them in
      return Object.assign({ index: r.index, line }, r);
    });
  }
}

async function* ingestRecords(pool: pg.Pool, records: AsyncIterable<RecordText>, opts: IngestOptions): AsyncGenerator<IngestResult[]> {
  const clock = opts.clock ?? (() => new Date());
  const size = opts.batchSize ?? 500;
  let batch: Normalized[] = [];
  const inFlight: { keys: Set<string>; done: Promise<IngestResult[]> }[] = [];
  let idsAfter: Promise<void> = Promise.resolve();
  // Once a batch met keys stored before it (a producer sending again what it sent), the next ones probably do
  // too: they skip the COPY attempt that such a key fails, until a batch meets none (write-records.ts insertRows).
  const copyHint: CopyHint = { storedKeys: false };
  const start = (b: Normalized[], keys: Set<string>) => {
    let idsTaken = () => {};
    const taken = new Promise<void>((resolve) => (idsTaken = resolve));
    const done = storeBatch(pool, b, clock(), opts, { after: inFlight.at(-1)?.done, idsAfter, idsTaken, copyHint });
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
  const threads = opts.normalizer ?? null;
  if (!threads) {
    for await (const rec of records) {
      batch.push(await normalizeRecord(rec, clock(), { ...opts, rules: await arrivalRules(pool) }));
      if (batch.length >= size) {
        yield* submit(batch);
        batch = [];
      }
    }
    if (batch.length) yield* submit(batch);
  } else {
    // Chunks are normalized on worker threads while this thread reads on and stores; they are stored in
    // input order. At most threads.size + 1 chunks wait for normalization, so memory stays bounded.
    const normalizing: Promise<Normalized[]>[] = [];
    let raw: RecordText[] = [];
    const send = async (recs: RecordText[]) => {
      // Whatever its size: a single envelope may hold a 10 MB polygon, whose parse alone held this thread for
      // seconds (a round trip to a warm thread costs well under a millisecond). opts is a NormalizeSettings; the
      // pool sends a thread only its sources, defaults, limits and the active rules.
      const p = threads.normalize(recs, clock(), { ...opts, rules: await arrivalRules(pool) });
      p.catch(() => {}); // surfaces when awaited, in order
      normalizing.push(p);
    };
    for await (const rec of records) {
      raw.push(rec);
      if (raw.length < size) continue;
      await send(raw);
      raw = [];
      while (normalizing.length > threads.size) yield* submit(await (normalizing.shift() as Promise<Normalized[]>));
    }
    if (raw.length) await send(raw);
    while (normalizing.length) yield* submit(await (normalizing.shift() as Promise<Normalized[]>));
  }
  while (inFlight.length) yield await (inFlight.shift() as (typeof inFlight)[number]).done;
}
