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
