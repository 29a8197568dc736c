// Times stored to the microsecond (timestamptz) read back without JavaScript's Date, which keeps milliseconds:
// what goes back into a query (a list cursor, a replay's observed_at into the ledger and the entity state) must
// be the stored instant, or a keyset cursor skips the rows of its own millisecond and two observations 0.4 ms
// apart tie. Client-safe (no database access).
import { inTimeRange } from "./range";

/**
 * SQL for a timestamptz as UTC RFC 3339 text to the microsecond, always six fraction digits
 * ("2024-01-01T00:00:00.123456Z"): fixed width, so such texts order as the instants do.
 */
export function utcMicrosSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** The same to the millisecond, as Date.toISOString() writes it: for the columns kept in milliseconds. */
export function utcMillisSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

const MICROS_TEXT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(\d{3})?Z$/;

/**
 * Whether `text` is such a time — or Date.toISOString()'s millisecond form — of a real instant in years
 * 0001–9999 (2026-02-30 is not one).
 */
export function isUtcMicrosText(text: string): boolean {
  const m = MICROS_TEXT.exec(text);
  if (!m) return false;
  const date = new Date(`${m[1]}Z`);
  return inTimeRange(date) && date.toISOString() === `${m[1]}Z`;
}

/** A Date (milliseconds) as such a text. */
export function utcMicrosOfDate(date: Date): string {
  return `${date.toISOString().slice(0, -1)}000Z`;
}

/** The UTC day ("YYYY-MM-DD") of such a text, and whether the text is that day's first or last microsecond. */
export const dayOfText = (text: string): string => text.slice(0, 10);
export const startOfDay = (day: string): string => `${day}T00:00:00.000000Z`;
export const endOfDay = (day: string): string => `${day}T23:59:59.999999Z`;
