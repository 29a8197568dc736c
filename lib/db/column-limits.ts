import { z } from "zod";

// What PostgreSQL's column types can hold, checked where input arrives, so a value out of range is the
// client's 422 naming the field rather than the database's "value out of range" as a 500. Client-safe.

/** bigint (the ids of records, batches, events, jobs) */
export const PG_BIGINT_MAX = 9223372036854775807n;
/** integer (a batch item's seq) */
export const PG_INT_MAX = 2_147_483_647;

/** A bigint id as digits: what `^\d{1,19}$` admits, up to PG_BIGINT_MAX. */
export function isBigintId(text: string): boolean {
  return /^\d{1,19}$/.test(text) && BigInt(text) <= PG_BIGINT_MAX;
}

/** A string schema for a bigint id; `message` names what the id is of. */
export function bigintIdSchema(message: string) {
  return z.string().refine(isBigintId, message);
}

/**
 * Longest text kept in a B-tree index here (idempotency keys, sources, device and event ids, entity keys), in
 * UTF-8 bytes. PostgreSQL refuses an index entry over ~2,700 bytes — the whole statement fails, a whole ingest
 * batch with it — so longer values are refused up front, naming the field. Real keys and ids are far shorter.
 */
export const MAX_INDEXED_BYTES = 1000;

/** UTF-8 length of `text`, counted only when it could exceed `limit` (3 bytes per UTF-16 unit at most). */
function utf8LengthOver(text: string, limit: number): number | null {
  if (text.length * 3 <= limit) return null;
  const bytes = new TextEncoder().encode(text).length;
  return bytes > limit ? bytes : null;
}

/** Why a value of an indexed text column cannot be stored, or null. */
export function indexedTextProblem(text: string): string | null {
  const bytes = utf8LengthOver(text, MAX_INDEXED_BYTES);
  return bytes === null
    ? null
    : `is too long: ${bytes.toLocaleString("en")} bytes (UTF-8), at most ${MAX_INDEXED_BYTES.toLocaleString("en")}`;
}
