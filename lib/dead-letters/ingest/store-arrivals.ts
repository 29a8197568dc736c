import "server-only";
import type pg from "pg";
import type { Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { PreparedRecord } from "../store/prepare-row";
import { storeDeadLetters, type CopyHint, type StoreContext, type StoreOutcome } from "../store/write-records";
import type { ArrivalOutcome, PulledCounts, StoredAs } from "./arrival-outcome";
import type { Normalized } from "./normalize";

// The store transactions of ingest's entry point (ingest.ts), the only module that writes records: a batch of
// envelopes, a capture request's failing taps, a page of broker messages with its bookkeeping. Each is one
// transaction; each answers in ArrivalOutcome, in input order.

export type { CopyHint };

export interface StoreWho {
  actor: Actor;
  requestId: string | null;
}

/** How a batch's store fits in its stream (see storeBatch and StoreContext). */
export type StoreOrder = Pick<StoreContext, "after" | "idsAfter" | "idsTaken" | "copyHint">;

function storedAs(r: PreparedRecord, unreadable = false): StoredAs {
  return { reason: r.failureReason, failureClass: r.failureClass, key: r.idempotencyKey, unreadable };
}

function outcomeOf(index: number, record: PreparedRecord, o: StoreOutcome, unreadable = false): ArrivalOutcome {
  const stored = storedAs(record, unreadable);
  if (o.status === "created") return { index, status: "created", id: o.id, stored };
  return {
    index,
    status: "duplicate",
    ...(o.id === null ? {} : { id: o.id }),
    stored,
    ...(o.failureClass === null ? {} : { classNow: o.failureClass }),
    effect: o.effect,
  };
}

/**
 * Stores a batch of normalized envelopes in one transaction; outcomes in input order. `order` keeps overlapping
 * stores of one stream in input order (StoreContext): take ids after `idsAfter`, then signal `idsTaken`; append
 * to the audit chain and commit only once `after` (the previous batch's store) has succeeded.
 */
export async function storeBatch(
  pool: pg.Pool,
  batch: Normalized[],
  now: Date,
  who: StoreWho,
  order: StoreOrder = {},
): Promise<ArrivalOutcome[]> {
  try {
    return await storeInOrder(pool, batch, now, who, order);
  } finally {
    order.idsTaken?.(); // also when nothing was stored or the store failed: the next batch must not wait for ever
  }
}

async function storeInOrder(pool: pg.Pool, batch: Normalized[], now: Date, who: StoreWho, order: StoreOrder): Promise<ArrivalOutcome[]> {
  const good = batch.filter((n): n is Extract<Normalized, { ok: true }> => n.ok);
  const stored = new Map<number, ArrivalOutcome>();
  if (good.length === 0) await order.after; // nothing to store, but report nothing before the batches ahead are in
  if (good.length) {
    const outcomes = await inTransaction(pool, async (client) => {
      // A store may wait (outside PostgreSQL's deadlock detector) for the previous batch of its stream; should
      // that one wait on a concurrent request that waits on us, the lock timeout breaks the cycle with an error
      // instead of a hang. Keys go in sorted (write-records.ts) to make such cycles rare in the first place.
      await client.query("SET LOCAL lock_timeout = '30s'");
      const records = good.map((g) => g.record);
      return storeDeadLetters(client, records, { now, ...who, origin: "ingest", ...order });
    });
    good.forEach((g, i) => {
      const o = outcomes[i];
      if (o) stored.set(g.index, outcomeOf(g.index, g.record, o));
    });
  }
  return batch.map((n) =>
    n.ok
      ? (stored.get(n.index) as ArrivalOutcome)
      : { index: n.index, status: "rejected" as const, errors: n.errors, ...(n.key !== undefined ? { key: n.key } : {}) },
  );
}

/** A capture request's failing taps, all or none (the producer retries the request). */
export async function storeTaps(
  pool: pg.Pool,
  failing: { index: number; record: PreparedRecord }[],
  now: Date,
  who: StoreWho,
): Promise<ArrivalOutcome[]> {
  if (failing.length === 0) return [];
  const outcomes = await inTransaction(pool, (client) =>
    storeDeadLetters(
      client,
      failing.map((f) => f.record),
      { now, ...who, origin: "capture" },
    ),
  );
  return failing.map((f, i) => outcomeOf(f.index, f.record, outcomes[i]!));
}

/** One message of a pulled page as seen-messages.ts compares them (position and body hash). */
export interface PageArrival {
  index: number;
  position: string;
  bodyHash: string;
  bodyGone: boolean;
}

export interface PageBooks {
  source: string;
  /** which arrivals the source has not stored before (seen-messages.ts unseen), given the known ones */
  unseen: (arrivals: PageArrival[], known: { position: string; bodyHash: string }[]) => PageArrival[];
  /** more bookkeeping of the page, in its storing transaction (a Pull now's progress on its request row) */
  alsoInTransaction?: (client: pg.PoolClient, page: PulledCounts) => Promise<void>;
  /** the page's counts as the source keeps them */
  count: (outcomes: ArrivalOutcome[]) => PulledCounts;
}

/**
 * A page of broker messages, normalized, stored in one transaction with its bookkeeping (source_message, the
 * source's counters, the caller's own). A crash between this commit and the caller's ack hands the same messages
 * out again; their positions and bodies are then found in source_message, so the second pull stores nothing and
 * counts no extra failure. A known position with another body is another message (`unseen` decides).
 */
export async function storePage(
  pool: pg.Pool,
  page: { arrival: PageArrival; record: PreparedRecord; unreadable: boolean }[],
  now: Date,
  who: StoreWho,
  books: PageBooks,
): Promise<ArrivalOutcome[]> {
  return inTransaction(pool, async (client) => {
    await client.query("SET LOCAL lock_timeout = '30s'");
    const known = await client.query<{ position: string; bodyHash: string }>(
      `SELECT position, body_hash AS "bodyHash" FROM source_message WHERE source = $1 AND position = ANY($2::text[])`,
      [books.source, [...new Set(page.map((p) => p.arrival.position))]],
    );
    // One record per message: a broker may hand the same dead letter out twice in one page.
    const toStore = books.unseen(
      page.map((p) => p.arrival),
      known.rows,
    );
    const stored = toStore.length
      ? await storeDeadLetters(
          client,
          toStore.map((a) => page[a.index]!.record),
          { now, ...who, origin: "pull" },
        )
      : [];
    const outcomes: ArrivalOutcome[] = page.map((p) => ({ index: p.arrival.index, status: "duplicate", effect: "seen" }));
    toStore.forEach((a, i) => {
      const p = page[a.index]!;
      outcomes[a.index] = outcomeOf(a.index, p.record, stored[i]!, p.unreadable);
    });
    const counts = books.count(outcomes);
    await keepBooks(
      client,
      books.source,
      toStore.map((a, i) => ({ position: a.position, bodyHash: a.bodyHash, recordId: stored[i]!.recordId })),
      counts,
      now,
    );
    await books.alsoInTransaction?.(client, counts);
    return outcomes;
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
