import "server-only";
import type pg from "pg";

// Stopping a batch (pause, cancel, fail) and recording a page's outcomes exclude each other on one advisory lock
// per batch: a page holds it shared from the moment it reads the batch's status until it commits, a stop takes
// it exclusively before it changes the status. So a stop either commits before a page reads the status — and
// that page delivers nothing — or waits for the page's commit and then counts its items as what they became.
// Read without it, a page that saw `running` just before a cancel would deliver after it, and the cancel would
// count those items as cancelled. Pages share the lock, so they still run side by side;
// the batch row itself stays free for the rate limiter's reservations.
//
// Lock order: a page takes it after its item rows and before the batch row; a stop takes it before the batch
// row. Nothing that holds the batch row waits for it.

/**
 * The first key of the two-key advisory lock space ("RED3": RED1 was the audit chain's, RED2 is batch creation); the
 * second is the batch id, folded to int4.
 */
const BATCH_STOP_LOCK = 0x5245_4433;
const KEY = `($2::bigint % 2147483647)::int`;

/** Shared, until the transaction ends: the batch cannot stop in between (write-outcomes.ts, before reading its status). */
export async function holdBatchAgainstStop(client: pg.PoolClient, batchId: string): Promise<void> {
  await client.query(`SELECT ${holdBatchAgainstStopSql("$1")}`, [batchId]);
}

/**
 * The same shared lock as an SQL expression on the batch id parameter `param`, for a statement that first locks
 * a group's item rows and then takes it (write-outcomes.ts ownedItems): one round trip instead of two, in the
 * lock order above. The batch's status must still be read by a later statement.
 */
export function holdBatchAgainstStopSql(param: string): string {
  return `pg_advisory_xact_lock_shared(${BATCH_STOP_LOCK}, (${param}::bigint % 2147483647)::int)`;
}

/** Exclusive, until the transaction ends: waits for the pages being recorded (apply-batch-action.ts, before a stop). */
export async function lockBatchForStop(client: pg.PoolClient, batchId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock($1, ${KEY})`, [BATCH_STOP_LOCK, batchId]);
}
