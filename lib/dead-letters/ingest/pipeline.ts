import "server-only";
import type pg from "pg";
import { keyOf } from "../store/prepare-row";
import type { ArrivalOutcome } from "./arrival-outcome";
import { normalizeRecord, type Normalized, type NormalizeSettings } from "./normalize";
import type { NormalizePool } from "./normalize-pool";
import { arrivalRules } from "../store/arrival-rules";
import type { RecordText } from "./split";
import { storeBatch, type CopyHint, type StoreWho } from "./store-arrivals";

// A stream of envelopes through ingest's entry point (ingest.ts): normalized (normalize.ts; on worker threads when
// given a NormalizePool) and stored in bounded batches, each batch one transaction, so memory stays flat whatever
// the input size and a failing record never takes others with it.

export interface StreamOptions extends NormalizeSettings, StoreWho {
  clock: () => Date;
  batchSize: number;
  /** worker threads for normalization (normalize-pool.ts); without one, records are normalized on this thread */
  normalizer: NormalizePool | null;
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
export async function* streamEnvelopes(
  pool: pg.Pool,
  records: AsyncIterable<RecordText>,
  opts: StreamOptions,
): AsyncGenerator<ArrivalOutcome[]> {
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
      if (line === undefined || r.status === "passed") return r;
      lines.delete(r.index);
      return { ...r, line };
    });
  }
}

async function* ingestRecords(pool: pg.Pool, records: AsyncIterable<RecordText>, opts: StreamOptions): AsyncGenerator<ArrivalOutcome[]> {
  const { clock, batchSize: size } = opts;
  const who = { actor: opts.actor, requestId: opts.requestId };
  let batch: Normalized[] = [];
  const inFlight: { keys: Set<string>; done: Promise<ArrivalOutcome[]> }[] = [];
  let idsAfter: Promise<void> = Promise.resolve();
  // Once a batch met keys stored before it (a producer sending again what it sent), the next ones probably do
  // too: they skip the COPY attempt that such a key fails, until a batch meets none (write-records.ts insertRows).
  const copyHint: CopyHint = { storedKeys: false };
  const start = (b: Normalized[], keys: Set<string>) => {
    let idsTaken = () => {};
    const taken = new Promise<void>((resolve) => (idsTaken = resolve));
    const done = storeBatch(pool, b, clock(), who, { after: inFlight.at(-1)?.done, idsAfter, idsTaken, copyHint });
    idsAfter = taken;
    // A rejected store surfaces when awaited; keep Node from reporting it as unhandled meanwhile.
    done.catch(() => {});
    inFlight.push({ keys, done });
  };
  async function* submit(b: Normalized[]): AsyncGenerator<ArrivalOutcome[]> {
    const keys = keysOf(b);
    // Oldest first, so results keep input order: wait while the pipeline is full or an in-flight batch shares a key.
    while (inFlight.length >= STORES_IN_FLIGHT || inFlight.some((f) => overlaps(f.keys, keys))) {
      yield await (inFlight.shift() as (typeof inFlight)[number]).done;
    }
    start(b, keys);
  }
  const threads = opts.normalizer;
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
