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
 * Times are taken within years 0001–9999 (RFC 3339's four-digit years): JavaScript dates reach ±275,760 and
 * PostgreSQL's timestamptz 4713 BC to 294,276 AD, so anything outside would otherwise fail in the query.
 */
export function inTimeRange(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

/** "YYYY-MM-DD…" whose day does not exist in that month (2026-02-30): JavaScript would roll it over. */
export function isImpossibleCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return true;
  return day > new Date(Date.UTC(year, month, 0)).getUTCDate();
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
  return bytes === null ? null : `is too long: ${bytes.toLocaleString("en")} bytes (UTF-8), at most ${MAX_INDEXED_BYTES.toLocaleString("en")}`;
}
