import "server-only";
import type pg from "pg";
import type { JsonValue } from "../../../json/value";
import type { Origin } from "../../../sources/connector";
import { ConnectorCache } from "../../../sources/connector-cache";
import { destinationTexts, originAllowed } from "../../../sources/destinations";
import { inBrokerOrder } from "../../../sources/header-order";
import { outgoingBody } from "../../../sources/outgoing-body";
import type { RemoteSink, SinkResult, Submission } from "../sink";

// The origin sink: each record goes back to its own original destination (RabbitMQ exchange + routing key,
// NATS subject, Redis stream, Kafka topic, SQS queue) through its source's connection, under the key stored at first ingest. The
// broker's answer decides the outcome: confirmed → applied; a dedup gate that already had the key → deduped;
// returned, nacked, unreachable → retried, poison after the batch's budget.

/** Publishes in flight per worker lane: a confirm round trip is a millisecond or two. */
export const ORIGIN_CONCURRENCY = 16;

interface OriginRow {
  origin_source: string | null;
  origin: (Origin & { source?: string }) | null;
  raw_envelope: string | null;
  /** the source's options as they are now (null: the source is gone): their `destinations` bound where it may go */
  source_options: unknown;
}

export function originSink(pool: pg.Pool, cache: ConnectorCache = sharedCache(pool)): RemoteSink {
  const rows = originRows(pool);
  return { mode: "remote", ledgerOrigin: "origin", concurrency: ORIGIN_CONCURRENCY, submit: (sub) => publishBack(rows, cache, sub) };
}

/**
 * Each submission needs its record's origin and raw envelope. The engine submits a page's items together, so the
 * reads of one turn of the event loop go as one query (a round trip per item held the unpaced drain to a third).
 */
function originRows(pool: pg.Pool): (id: string) => Promise<OriginRow | undefined> {
  let waiting: { id: string; resolve: (r: OriginRow | undefined) => void; reject: (e: unknown) => void }[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    pool
      .query<OriginRow & { id: string }>(
        `SELECT d.id::text AS id, d.origin_source, d.origin, d.raw_envelope, s.options AS source_options
         FROM dead_letter d LEFT JOIN source s ON s.name = d.origin_source WHERE d.id = ANY($1::bigint[])`,
        [batch.map((w) => w.id)],
      )
      .then(
        ({ rows }) => {
          const byId = new Map(rows.map((r) => [r.id, r]));
          for (const w of batch) w.resolve(byId.get(w.id));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      );
  };
  return (id) =>
    new Promise((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ id, resolve, reject });
    });
}

let shared: { pool: pg.Pool; cache: ConnectorCache } | null = null;
function sharedCache(pool: pg.Pool): ConnectorCache {
  if (shared?.pool !== pool) shared = { pool, cache: new ConnectorCache(pool) };
  return shared.cache;
}

/** Closes the connections the origin sink holds in this process (worker shutdown). */
export async function closeOriginConnections(): Promise<void> {
  await shared?.cache.closeAll();
  shared = null;
}

async function publishBack(
  rowOf: (id: string) => Promise<OriginRow | undefined>,
  cache: ConnectorCache,
  sub: Submission,
): Promise<SinkResult> {
  let row: OriginRow | undefined;
  try {
    row = await rowOf(sub.deadLetterId);
  } catch (err) {
    return { outcome: "retry", reason: `reading the record's origin: ${(err as Error).message}`, retryAfterMs: null, slowDown: false };
  }
  if (!row?.origin_source || !row.origin) {
    return { outcome: "failed", reason: "the record has no origin: it was not pulled from a broker source", permanent: true };
  }
  // The source's options.destinations, checked on every send, whichever way the item came (a batch checked them at
  // creation; a rule's standing replay takes its approvals as they arrive; an admin may narrow them since).
  if (!originAllowed(row.source_options, row.origin.destination)) {
    const where = destinationTexts(row.origin.destination).join(", ");
    return {
      outcome: "failed",
      reason: `source ${row.origin_source} does not allow publishing to ${where || "an unreadable destination"} (its options.destinations)`,
      permanent: true,
    };
  }
  const body = outgoingBody(sub.kind, row.raw_envelope, sub.payload as JsonValue);
  if (!body.ok) return { outcome: "failed", reason: body.reason, permanent: true };
  let connector;
  try {
    connector = await cache.get(row.origin_source);
  } catch (err) {
    return { outcome: "retry", reason: `source ${row.origin_source}: ${(err as Error).message}`, retryAfterMs: null, slowDown: false };
  }
  // The headers go back in the order the broker gave them (storage as jsonb reorders them).
  const origin = inBrokerOrder(row.origin);
  const result = await connector.publish({ key: sub.idempotencyKey, body: body.body, origin }).catch((err: unknown) => ({
    outcome: "failed" as const,
    error: (err as Error).message,
    retryable: true,
  }));
  if (result.outcome === "applied" || result.outcome === "deduped") return { outcome: result.outcome };
  if (result.retryable) {
    await cache.drop(row.origin_source);
    return { outcome: "retry", reason: `source ${row.origin_source}: ${result.error}`, retryAfterMs: null, slowDown: false };
  }
  return { outcome: "failed", reason: `source ${row.origin_source}: ${result.error}` };
}
