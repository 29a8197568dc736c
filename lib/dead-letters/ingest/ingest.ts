import "server-only";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { geometryLimits } from "../../env";
import { AppError, notUtf8Body } from "../../errors/app-error";
import type { JsonValue } from "../../json/value";
import { parseJsonOrPython } from "../../json/lossless";
import { getGeos } from "../../spatial/geos";
import type { DeadLetterKind, RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { pulledCounts, type ArrivalOutcome, type PulledCounts } from "./arrival-outcome";
import type { NormalizeSettings, SourceSettings } from "./normalize";
import { sharedNormalizePool, type NormalizePool } from "./normalize-pool";
import { streamEnvelopes } from "./pipeline";
import { preparePulled, type PulledBody } from "./pulled-message";
import { arrivalRules } from "../store/arrival-rules";
import { decodeUtf8, MAX_RECORD_BYTES, RECORD_TOO_LARGE, splitJson, splitNdjsonBytes, type BodyFormat, type RecordText } from "./split";
import { storePage, storeTaps, type PageArrival, type PageBooks } from "./store-arrivals";
import { gateTaps } from "./tap-gate";

// The one way in. Every arrival — POST /api/dead-letters, the dashboard's import (which posts there), `redrive
// import`, POST /api/afc/taps, a page of a broker pull — comes through ingest(), which owns what every arrival
// must get: the record limit (MAX_RECORD_BYTES), the source's repair settings and the geometry limits,
// normalization on the ingest threads (normalize-pool.ts; this thread only when there are none), the store
// (store-arrivals.ts, the only writer of records) and its bookkeeping (source_message and the source's counters
// for a pull). It answers every path in ArrivalOutcome; each path turns that into its documented wire format
// (arrival-outcome.ts).

/** A message as the broker handed it out, in the vocabulary of ingest (lib/sources maps its own to it). */
export interface ArrivedMessage {
  /**
   * Moved to an ingest thread when it is the whole of its buffer (the caller must not read it afterwards): a 20 MB
   * body costs this thread no copy.
   */
  body: Buffer;
  /** names one message instance within its source (lib/sources/<type>/origin.ts) */
  position: string;
  deathReason: string | null;
  messageId: string | null;
  publishedAt: string | null;
  /** the whole provenance, stored with the record */
  origin: JsonValue;
  /** the broker reported a dead letter whose body is gone */
  problem?: string;
}

export interface BrokerSource {
  name: string;
  type: string;
  kind: DeadLetterKind;
}

export type Arrival =
  /** envelopes as a request or a file sends them: NDJSON, or JSON (one envelope, an array, concatenated values) */
  | { via: "envelopes"; body: AsyncIterable<Uint8Array>; format: BodyFormat }
  /** envelopes already split into records (the demo seed, benchmarks, tests) */
  | { via: "records"; records: AsyncIterable<RecordText> }
  /** a capture request's body: raw taps through the AFC gate, the failing ones stored (all or nothing) */
  | { via: "taps"; body: Uint8Array; format: "json" | "ndjson"; source?: string }
  /** a page of a broker pull, stored with its bookkeeping before the caller acknowledges it */
  | {
      via: "broker";
      source: BrokerSource;
      messages: readonly ArrivedMessage[];
      unseen: PageBooks["unseen"];
      alsoInTransaction?: PageBooks["alsoInTransaction"];
    };

export interface IngestContext {
  pool: pg.Pool;
  actor: Actor;
  requestId: string | null;
  /** read once per stored batch (default: the wall clock) */
  clock?: () => Date;
  /** the ingest threads; default the process's (sharedNormalizePool), null: normalize on this thread */
  threads?: NormalizePool | null;
  /** envelopes per stored batch (default 500) */
  batchSize?: number;
}

/**
 * Takes `arrival` in. Resolves once it is accepted as a whole — rejects with an AppError for a refusal of the
 * whole (an empty or unparseable single-envelope body, a single record over the limit, too many taps) before
 * anything is stored — to its outcomes, in input order, a stored batch at a time.
 */
export async function ingest(arrival: Arrival, ctx: IngestContext): Promise<AsyncIterable<ArrivalOutcome[]>> {
  const threads = ctx.threads === undefined ? sharedNormalizePool() : ctx.threads;
  const clock = ctx.clock ?? (() => new Date());
  const who = { actor: ctx.actor, requestId: ctx.requestId };
  switch (arrival.via) {
    case "envelopes":
    case "records": {
      const records =
        arrival.via === "records"
          ? withinLimit(arrival.records)
          : arrival.format === "ndjson"
            ? splitNdjsonBytes(arrival.body)
            : await wholeJsonBody(arrival.body, threads);
      const settings = await loadSettings(ctx.pool);
      return streamEnvelopes(ctx.pool, records, { ...settings, ...who, clock, batchSize: ctx.batchSize ?? 500, normalizer: threads });
    }
    case "taps": {
      // A capture request is one record's worth at most: past it, refused whole (the boundary is all or nothing).
      if (arrival.body.byteLength > MAX_RECORD_BYTES) {
        const message = `larger than ${MAX_RECORD_BYTES / 1024 / 1024} MB`;
        throw new AppError("payload_too_large", `body: ${message}`, { issues: [{ path: "body", message }] });
      }
      const now = clock();
      const rules = await arrivalRules(ctx.pool);
      const gated = threads
        ? await threads.gateTaps(arrival.body, arrival.format, now, arrival.source, rules)
        : gateTaps(arrival.body, arrival.format, now, arrival.source, rules);
      const captured = await storeTaps(ctx.pool, gated.failing, now, who);
      return once([...gated.passed, ...captured].sort((a, b) => a.index - b.index));
    }
    case "broker":
      return once(await ingestPage(arrival, ctx.pool, clock(), who, threads));
  }
}

/** ingest() with every outcome at once: for an arrival that is one batch (a capture request, a pulled page). */
export async function ingestAll(arrival: Arrival, ctx: IngestContext): Promise<ArrivalOutcome[]> {
  const out: ArrivalOutcome[] = [];
  for await (const batch of await ingest(arrival, ctx)) out.push(...batch);
  return out;
}

async function* once(outcomes: ArrivalOutcome[]): AsyncGenerator<ArrivalOutcome[]> {
  yield outcomes;
}

/** A broker page's counts, as its pull answers and its source keeps them. */
export { pulledCounts, type PulledCounts };

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

/** Every arrival's normalization settings: the sources' repair settings and this process's geometry limits. */
async function loadSettings(pool: pg.Pool): Promise<NormalizeSettings> {
  return { sources: await loadSourceSettings(pool), limits: geometryLimits() };
}

/** Records split elsewhere get the same limit as a body split here: one over it is rejected by itself. */
async function* withinLimit(records: AsyncIterable<RecordText>): AsyncGenerator<RecordText> {
  for await (const rec of records) {
    const size = rec.bytes ? rec.bytes.byteLength : rec.text.length * 3 > MAX_RECORD_BYTES ? Buffer.byteLength(rec.text) : 0;
    yield size > MAX_RECORD_BYTES
      ? { index: rec.index, ...(rec.line !== undefined ? { line: rec.line } : {}), text: "", error: RECORD_TOO_LARGE }
      : rec;
  }
}

async function ingestPage(
  arrival: Extract<Arrival, { via: "broker" }>,
  pool: pg.Pool,
  now: Date,
  who: { actor: Actor; requestId: string | null },
  threads: NormalizePool | null,
): Promise<ArrivalOutcome[]> {
  const { source, messages } = arrival;
  // Read before the bodies move to a thread.
  const gone = messages.map((m) => m.problem !== undefined && m.body.length === 0);
  const bodies: PulledBody[] = messages.map((m) => ({
    body: m.body,
    kind: source.kind,
    sourceName: source.name,
    sourceType: source.type,
    deathReason: m.deathReason,
    messageId: m.messageId,
    publishedAt: m.publishedAt,
    origin: m.origin,
    ...(m.problem !== undefined ? { problem: m.problem } : {}),
  }));
  // The active triage rules: what they will ask of each record is gathered where it is normalized (rule-facts.ts).
  const settings = { ...(await loadSettings(pool)), rules: await arrivalRules(pool) };
  const prepared = threads
    ? await threads.normalizePulled(bodies, now, settings, MAX_RECORD_BYTES)
    : preparePulled(bodies, now, await getGeos(), settings, MAX_RECORD_BYTES);
  const page = messages.map((m, index) => {
    const p = prepared[index]!;
    const arrival: PageArrival = { index, position: m.position, bodyHash: p.bodyHash, bodyGone: gone[index]! };
    return { arrival, record: p.record, unreadable: p.unreadable };
  });
  return storePage(pool, page, now, who, {
    source: source.name,
    unseen: arrival.unseen,
    count: pulledCounts,
    ...(arrival.alsoInTransaction ? { alsoInTransaction: arrival.alsoInTransaction } : {}),
  });
}

/**
 * A JSON body (not NDJSON) that is one value and not JSON at all — `{"kind":`, a truncated upload — is a bad
 * request, refused before anything is stored, like every other JSON route; with two or more records (an array,
 * concatenated values) a malformed one rejects that record only. Reads at most the first two records, and gives
 * back an iterator over all of them.
 */
async function wholeJsonBody(bytes: AsyncIterable<Uint8Array>, threads: NormalizePool | null): Promise<AsyncGenerator<RecordText>> {
  let sawText = false;
  const text = async function* (chunks: AsyncIterable<string>) {
    try {
      for await (const chunk of chunks) {
        if (!sawText && chunk.trim() !== "") sawText = true;
        yield chunk;
      }
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      throw notUtf8Body();
    }
  };
  const records = splitJson(text(decodeUtf8(bytes)));
  let first = await records.next();
  if (first.done && !sawText) {
    throw new AppError("invalid_json", "body: empty; send one envelope, a JSON array or NDJSON", {
      issues: [{ path: "body", message: "required" }],
    });
  }
  const second = first.done ? first : await records.next();
  if (!first.done && second.done) {
    if (first.value.error === RECORD_TOO_LARGE) {
      throw new AppError("payload_too_large", `body: ${RECORD_TOO_LARGE}; nothing was stored`, {
        issues: [{ path: "body", message: RECORD_TOO_LARGE }],
      });
    }
    // On a thread when there is one: the body may be one 12 MB envelope, seconds of parsing. The record goes on
    // as the thread was sent it (a long text as shared bytes, encoded once).
    const checked = threads ? await threads.parseProblem(first.value) : { problem: parseProblemHere(first.value.text), rec: first.value };
    const { problem } = checked;
    first = { done: false, value: checked.rec };
    if (problem !== null) {
      throw new AppError("invalid_json", `body: not valid JSON (${problem}); nothing was stored`, {
        issues: [{ path: "body", message: "not valid JSON" }],
      });
    }
  }
  return (async function* () {
    if (!first.done) yield first.value;
    if (!second.done) yield second.value;
    yield* records;
  })();
}

function parseProblemHere(text: string): string | null {
  try {
    parseJsonOrPython(text);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
