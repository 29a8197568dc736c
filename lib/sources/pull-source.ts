import "server-only";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { ingestAll, pulledCounts, type PulledCounts } from "../dead-letters/ingest/ingest";
import type { JsonValue } from "../json/value";
import type { DeadLetterKind } from "../vocabulary/record";
import type { PulledMessage, SourceConnector } from "./connector";
import { withHeaderOrder } from "./header-order";
import { unseen } from "./seen-messages";
import type { PullCounts } from "./source-schemas";

// One pull: take a page of dead letters from the broker, hand it to ingest's entry point (lib/dead-letters/ingest/
// ingest.ts: normalized on the ingest threads, stored with its bookkeeping in one transaction), and only after that commit
// acknowledge it. A crash between the two hands the same messages out again; their positions and bodies are then
// found in source_message, so the second pull stores nothing and counts no extra failure — it only acknowledges.
// A known position with another body is another message (seen-messages.ts). A message not seen before always
// reaches the store, also when its key is stored: what a known key means there is the store's decision
// (lib/dead-letters/store/repeat-failure.ts decideKnownKey), the same for every path.

export const PULL_PAGE = 500;

export interface PullTarget {
  name: string;
  type: string;
  kind: DeadLetterKind;
}

export interface PullOptions {
  /** messages to pull at most (all waiting when absent, page by page) */
  max?: number;
  /** how long the first take waits for a message to arrive */
  waitMs?: number;
  actor: Actor;
  requestId: string | null;
  clock: () => Date;
  /** stops between pages */
  signal?: AbortSignal;
  /** also stops between pages once this says so (a pull request waits for the source: source-turns.ts) */
  yieldTo?: () => boolean;
  /** more bookkeeping of each page in its storing transaction (a Pull now's progress) */
  alsoInTransaction?: (client: pg.PoolClient, page: PulledCounts) => Promise<void>;
}

const ZERO: Required<PullCounts> = { pulled: 0, created: 0, duplicates: 0, unreadable: 0, failedAgain: 0 };

export async function pullSource(pool: pg.Pool, source: PullTarget, connector: SourceConnector, opts: PullOptions): Promise<PullCounts> {
  const counts = { ...ZERO };
  let first = true;
  while (!opts.signal?.aborted && !opts.yieldTo?.()) {
    const want = Math.min(PULL_PAGE, (opts.max ?? Infinity) - counts.pulled);
    if (want <= 0) break;
    const messages = await connector.take(want, first ? (opts.waitMs ?? 0) : 0);
    first = false;
    if (messages.length === 0) break;
    const page = await storePage(pool, source, messages, opts);
    await connector.ack(messages);
    for (const k of Object.keys(counts) as (keyof PullCounts)[]) counts[k] += page[k] ?? 0;
  }
  // Named only when there were any: a pull's answer keeps its four counts otherwise.
  const { failedAgain, ...rest } = counts;
  return failedAgain > 0 ? counts : rest;
}

/** A page to ingest's entry point, which stores it with its bookkeeping before this acknowledges it. */
async function storePage(pool: pg.Pool, source: PullTarget, messages: PulledMessage[], opts: PullOptions): Promise<PulledCounts> {
  const outcomes = await ingestAll(
    {
      via: "broker",
      source,
      messages: messages.map((m) => ({
        body: m.body,
        position: m.origin.position,
        deathReason: m.origin.deathReason,
        messageId: m.origin.messageId,
        publishedAt: m.origin.publishedAt,
        origin: { source: source.name, ...withHeaderOrder(m.origin) } as unknown as JsonValue,
        ...(m.problem !== undefined ? { problem: m.problem } : {}),
      })),
      unseen,
      ...(opts.alsoInTransaction ? { alsoInTransaction: opts.alsoInTransaction } : {}),
    },
    { pool, actor: opts.actor, requestId: opts.requestId, clock: opts.clock },
  );
  return pulledCounts(outcomes);
}
