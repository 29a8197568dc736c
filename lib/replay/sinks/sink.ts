import "server-only";
import type pg from "pg";
import type { JsonValue } from "@/lib/json/value";
import type { DeadLetterKind, SentRepair } from "@/lib/vocabulary/record";
import type { SinkType } from "./registry";

// A sink is where a replay delivers a record. Two kinds, one small interface each:
// - in-transaction (the built-in ledger): delivery happens inside the transaction that records the items'
//   outcomes, so the effect and the outcome commit together (exactly-once effect);
// - remote (HTTP): delivery happens before that transaction; a crash in between means the same key is sent
//   again, which the receiver deduplicates by the Idempotency-Key header.

export interface Submission {
  itemId: string;
  batchId: string;
  deadLetterId: string;
  kind: DeadLetterKind;
  /** the key stored at first ingest, verbatim: never regenerated on replay */
  idempotencyKey: string;
  entityKey: string | null;
  /**
   * UTC RFC 3339 to the microsecond, as stored ("2024-01-01T00:00:00.123456Z", lib/time/instant.ts): what the
   * ledger's entity state compares (fixed width, so texts order as instants do) and the HTTP sink sends
   */
  observedAt: string;
  /** the re-validated (spatial: repaired) record */
  payload: JsonValue;
  /** spatial: the repair it was sent with, recorded on its item (replay_item.sent) once submitted; sinks ignore it */
  repair?: SentRepair | null;
}

export type SinkResult =
  | { outcome: "applied" | "deduped" }
  /** worth trying again later: timeouts, connection errors, 408, 429, 5xx */
  | { outcome: "retry"; reason: string; retryAfterMs: number | null; slowDown: boolean }
  /**
   * the sink refused the record (other 4xx): retried later with exponential backoff, poison after the budget;
   * `permanent` (nothing was sent: the request cannot be made at all, e.g. a key no header can carry): poison now
   */
  | { outcome: "failed"; reason: string; permanent?: boolean };

export interface TransactionalSink {
  mode: "in-transaction";
  /** Delivers inside `client`'s open transaction; returns each submission's item id → applied | deduped. */
  settle(client: pg.PoolClient, subs: Submission[], now: Date): Promise<Map<string, "applied" | "deduped">>;
}

export interface RemoteSink {
  mode: "remote";
  /** how the ledger records the keys this sink settled: its type, by which a record's timeline names it (settledBy) */
  ledgerOrigin: SinkType;
  /** requests in flight at once per worker lane */
  concurrency: number;
  submit(sub: Submission, signal: AbortSignal): Promise<SinkResult>;
}

export type Sink = TransactionalSink | RemoteSink;
