import "server-only";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { inTransaction } from "../db/transaction";
import { loadSourceSettings } from "../dead-letters/ingest/pipeline";
import { DEFAULT_SOURCE_SETTINGS, normalizePulled, type PulledRecord } from "../dead-letters/ingest/pulled-message";
import { prepareRecord } from "../dead-letters/store/prepare-row";
import { storeDeadLetters } from "../dead-letters/store/write-records";
import type { JsonValue } from "../json/value";
import { getGeos } from "../spatial/geos";
import type { DeadLetterKind } from "../vocabulary/record";
import type { PulledMessage, SourceConnector } from "./connector";
import type { PullCounts } from "./source-schemas";

// One pull: take a page of dead letters from the broker, store them in one transaction, and only after that
// commit acknowledge them. A crash between the two hands the same messages out again; their positions are then
// found in source_message (written in the storing transaction), so the second pull stores nothing and counts
// no extra failure — it only acknowledges. A position not seen before always reaches the store, also when its key
// is stored: what a known key means there (one more failure, a replayed record failing again, another sender's
// re-send) is the store's decision (lib/dead-letters/store/repeat-failure.ts decideKnownKey), the same for every path.

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
}

const ZERO: Required<PullCounts> = { pulled: 0, created: 0, duplicates: 0, unreadable: 0, failedAgain: 0 };

export async function pullSource(pool: pg.Pool, source: PullTarget, connector: SourceConnector, opts: PullOptions): Promise<PullCounts> {
  const counts = { ...ZERO };
  const settings = await loadSourceSettings(pool);
  const settingsOf = (s: string) => settings.get(s) ?? DEFAULT_SOURCE_SETTINGS;
  let first = true;
  while (!opts.signal?.aborted) {
    const want = Math.min(PULL_PAGE, (opts.max ?? Infinity) - counts.pulled);
    if (want <= 0) break;
    const messages = await connector.take(want, first ? (opts.waitMs ?? 0) : 0);
    first = false;
    if (messages.length === 0) break;
    const page = await storePage(pool, source, messages, settingsOf, opts);
    await connector.ack(messages);
    for (const k of Object.keys(counts) as (keyof PullCounts)[]) counts[k] += page[k] ?? 0;
  }
  // Named only when there were any: a pull's answer keeps its four counts otherwise.
  const { failedAgain, ...rest } = counts;
  return failedAgain > 0 ? counts : rest;
}

async function storePage(
  pool: pg.Pool,
  source: PullTarget,
  messages: PulledMessage[],
  settingsOf: Parameters<typeof normalizePulled>[3],
  opts: PullOptions,
): Promise<PullCounts> {
  const now = opts.clock();
  const geos = await getGeos();
  // One record per position: a broker may hand the same dead letter out twice in one page.
  const byPosition = new Map<string, PulledMessage>();
  for (const m of messages) if (!byPosition.has(m.origin.position)) byPosition.set(m.origin.position, m);
  return inTransaction(pool, async (client) => {
    await client.query("SET LOCAL lock_timeout = '30s'");
    const known = await client.query<{ position: string }>(
      "SELECT position FROM source_message WHERE source = $1 AND position = ANY($2::text[])",
      [source.name, [...byPosition.keys()]],
    );
    for (const { position } of known.rows) byPosition.delete(position);
    const fresh = [...byPosition.values()];
    const records: PulledRecord[] = fresh.map((m) =>
      normalizePulled(
        {
          body: m.body,
          kind: source.kind,
          sourceName: source.name,
          sourceType: source.type,
          deathReason: m.origin.deathReason,
          messageId: m.origin.messageId,
          publishedAt: m.origin.publishedAt,
          origin: { source: source.name, ...m.origin } as unknown as JsonValue,
          ...(m.problem !== undefined ? { problem: m.problem } : {}),
        },
        now,
        geos,
        settingsOf,
      ),
    );
    const outcomes = records.length
      ? await storeDeadLetters(
          client,
          records.map((r) => prepareRecord(r.record)),
          { now, actor: opts.actor, requestId: opts.requestId, origin: "pull" },
        )
      : [];
    if (outcomes.length) {
      await client.query(
        `INSERT INTO source_message (source, position, dead_letter_id, pulled_at)
         SELECT $1, p, id, $4 FROM unnest($2::text[], $3::bigint[]) AS t(p, id)`,
        [source.name, fresh.map((m) => m.origin.position), outcomes.map((o) => o.recordId), now],
      );
    }
    // A message at a new position whose key is a replayed record's is that record failing again: counted apart
    // from "already stored" (a position seen before, or a re-send of a record still in triage).
    const created = outcomes.filter((o) => o.status === "created").length;
    const failedAgain = outcomes.filter((o) => o.status === "duplicate" && o.effect === "failed_again").length;
    const page: PullCounts = {
      pulled: messages.length,
      created,
      duplicates: messages.length - created - failedAgain,
      unreadable: records.filter((r, i) => r.unreadable && outcomes[i]?.status === "created").length,
      failedAgain,
    };
    const day = now.toISOString().slice(0, 10);
    await client.query(
      `UPDATE source SET pulled_total = pulled_total + $2, created_total = created_total + $3,
         duplicates_total = duplicates_total + $4, unreadable_total = unreadable_total + $5,
         pulled_today = CASE WHEN pulled_day = $6::date THEN pulled_today + $2 ELSE $2 END, pulled_day = $6::date,
         last_pull_at = $7, connected = true, last_error = NULL, failures = 0, failing_since = NULL, next_attempt_at = NULL
       WHERE name = $1`,
      [source.name, page.pulled, page.created, page.duplicates + failedAgain, page.unreadable, day, now],
    );
    return page;
  });
}
