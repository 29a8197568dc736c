import "server-only";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { JsonValue } from "../../json/value";
import { getGeos } from "../../spatial/geos";
import type { DeadLetterKind } from "../../vocabulary/record";
import { storeDeadLetters } from "../store/write-records";
import type { NormalizeSettings } from "./normalize";
import { sharedNormalizePool } from "./normalize-pool";
import { arrivalRules } from "../store/arrival-rules";
import { preparePulled, type PreparedPulled, type PulledBody } from "./pulled-message";
import { MAX_RECORD_BYTES } from "./split";

// A page of broker messages, as the one ingest entry point (ingest.ts) takes it in: normalized on the ingest
// threads, stored in one transaction with the page's bookkeeping (source_message, the source's counters, and the
// caller's own, e.g. a Pull now's progress) and only then acknowledged by the caller. A crash between the commit
// and the ack hands the same messages out again; their positions and bodies are then found in source_message, so
// the second pull stores nothing and counts no extra failure. A known position with another body is another
// message (lib/sources/seen-messages.ts decides which are unseen; the caller passes it in as `unseen`).

/** A message as the broker handed it out, in the vocabulary of ingest (lib/sources maps its own to it). */
export interface ArrivedMessage {
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

export interface PulledCounts {
  pulled: number;
  created: number;
  duplicates: number;
  unreadable: number;
  failedAgain: number;
}

/** One arrival of the page as seen-messages.ts compares them (position and body hash). */
export interface PageArrival {
  index: number;
  position: string;
  bodyHash: string;
  bodyGone: boolean;
}

export interface PulledPageOptions {
  actor: Actor;
  requestId: string | null;
  now: Date;
  settings: NormalizeSettings;
  /** which arrivals the source has not stored before (seen-messages.ts unseen), given the known ones */
  unseen: (arrivals: PageArrival[], known: { position: string; bodyHash: string }[]) => PageArrival[];
  /** more bookkeeping of the page, in its storing transaction (a Pull now's progress on its request row) */
  alsoInTransaction?: (client: pg.PoolClient, page: PulledCounts) => Promise<void>;
  maxBodyBytes?: number;
}

/** Normalizes the page on an ingest thread when there is one (here otherwise): never the puller's own event loop. */
async function prepare(pool: pg.Pool, bodies: PulledBody[], opts: PulledPageOptions): Promise<PreparedPulled[]> {
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_RECORD_BYTES;
  const threads = sharedNormalizePool();
  const settings = { ...opts.settings, rules: await arrivalRules(pool) };
  if (threads) return threads.normalizePulled(bodies, opts.now, settings, maxBodyBytes);
  return preparePulled(bodies, opts.now, await getGeos(), settings, maxBodyBytes);
}

export async function ingestPulledPage(
  pool: pg.Pool,
  source: BrokerSource,
  messages: readonly ArrivedMessage[],
  opts: PulledPageOptions,
): Promise<PulledCounts> {
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
  const prepared = await prepare(pool, bodies, opts);
  const arrivals: PageArrival[] = messages.map((m, index) => ({
    index,
    position: m.position,
    bodyHash: prepared[index]!.bodyHash,
    bodyGone: m.problem !== undefined && m.body.length === 0,
  }));
  return inTransaction(pool, async (client) => {
    await client.query("SET LOCAL lock_timeout = '30s'");
    const known = await client.query<{ position: string; bodyHash: string }>(
      `SELECT position, body_hash AS "bodyHash" FROM source_message WHERE source = $1 AND position = ANY($2::text[])`,
      [source.name, [...new Set(arrivals.map((a) => a.position))]],
    );
    // One record per message: a broker may hand the same dead letter out twice in one page.
    const toStore = opts.unseen(arrivals, known.rows);
    const records = toStore.map((a) => prepared[a.index]!);
    const outcomes = records.length
      ? await storeDeadLetters(
          client,
          records.map((r) => r.record),
          { now: opts.now, actor: opts.actor, requestId: opts.requestId, origin: "pull" },
        )
      : [];
    const created = outcomes.filter((o) => o.status === "created").length;
    // A message at a new position whose key is a replayed record's is that record failing again: counted apart
    // from "already stored" (a position seen before, or a re-send of a record still in triage).
    const failedAgain = outcomes.filter((o) => o.status === "duplicate" && o.effect === "failed_again").length;
    const page: PulledCounts = {
      pulled: messages.length,
      created,
      duplicates: messages.length - created - failedAgain,
      unreadable: records.filter((r, i) => r.unreadable && outcomes[i]?.status === "created").length,
      failedAgain,
    };
    await keepBooks(
      client,
      source.name,
      toStore.map((a, i) => ({ position: a.position, bodyHash: a.bodyHash, recordId: outcomes[i]!.recordId })),
      page,
      opts.now,
    );
    await opts.alsoInTransaction?.(client, page);
    return page;
  });
}

/** The page's bookkeeping: where each stored message went (source_message) and the source's counters. */
async function keepBooks(
  client: pg.PoolClient,
  source: string,
  stored: { position: string; bodyHash: string; recordId: string }[],
  page: PulledCounts,
  now: Date,
): Promise<void> {
  if (stored.length) {
    await client.query(
      `INSERT INTO source_message (source, position, body_hash, dead_letter_id, pulled_at)
       SELECT $1, p, h, id, $5 FROM unnest($2::text[], $3::text[], $4::bigint[]) AS t(p, h, id)`,
      [source, stored.map((s) => s.position), stored.map((s) => s.bodyHash), stored.map((s) => s.recordId), now],
    );
  }
  const day = now.toISOString().slice(0, 10);
  await client.query(
    `UPDATE source SET pulled_total = pulled_total + $2, created_total = created_total + $3,
       duplicates_total = duplicates_total + $4, unreadable_total = unreadable_total + $5,
       pulled_today = CASE WHEN pulled_day = $6::date THEN pulled_today + $2 ELSE $2 END, pulled_day = $6::date,
       last_pull_at = $7, connected = true, last_error = NULL, failures = 0, failing_since = NULL, next_attempt_at = NULL
     WHERE name = $1`,
    [source, page.pulled, page.created, page.duplicates + page.failedAgain, page.unreadable, day, now],
  );
}
