// RFC 3339 timestamps as producers write them. zod's ISO pattern knows only an upper-case "T" and "Z", but
// RFC 3339's ABNF is case-insensitive (§5.6: "t" and "z" are allowed) and lets applications put a space
// between date and time — what Python's str(datetime) writes. Metadata times a producer stored
// (`observed_at`, `first_seen_utc`) also come from naive datetimes (`datetime.utcnow().isoformat()`, no
// offset): those are read as UTC, since rejecting the record would lose the dead letter over its bookkeeping.
import * as z from "zod";
import { inTimeRange, isImpossibleCalendarDate } from "../db/pg-range";

const WITH_OFFSET = z.iso.datetime({ offset: true });
const OFFSET_OR_NAIVE = z.iso.datetime({ offset: true, local: true });
const SEPARATOR = /^(\d{4}-\d{2}-\d{2})[Tt ]/;
/** RFC 3339 requires seconds; zod's pattern lets a naive time stop at minutes. */
const HAS_SECONDS = /^\d{2}:\d{2}:\d{2}/;
const HAS_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/;

/** Upper-case "T"/"Z" (and, when `space` is allowed, "T" for a space separator) so zod's pattern applies. */
function canonical(text: string, space: boolean): string | null {
  const sep = SEPARATOR.exec(text);
  if (!sep || (!space && text.charAt(10) === " ")) return null;
  const rest = text.slice(11);
  if (!HAS_SECONDS.test(rest)) return null;
  return `${sep[1]}T${rest.endsWith("z") ? `${rest.slice(0, -1)}Z` : rest}`;
}

/** RFC 3339 date-time with a mandatory offset, "t"/"z" in either case; no space separator, no naive times. */
export function isRfc3339(text: string): boolean {
  const c = canonical(text, false);
  return c !== null && WITH_OFFSET.safeParse(c).success;
}

/**
 * A producer-stored time: RFC 3339 in either case, "T" or a space between date and time, and a naive time
 * (no offset) read as UTC. Seconds are required, as in RFC 3339. Null when it is none of these or not a real calendar date.
 */
export function parseProducerTime(text: string): Date | null {
  const c = canonical(text, true);
  if (c === null || !OFFSET_OR_NAIVE.safeParse(c).success) return null;
  const date = new Date(HAS_OFFSET.test(c) ? c : `${c}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * A time from a URL ("2026-11-05T08:00:00.000Z", or without an offset, read as UTC) → "2026-11-05T08:00" for an
 * <input type="datetime-local"> labelled UTC; "" for anything that is not a real time in years 0001–9999
 * (2026-02-30 must not come back as 2 March, and an unparseable value must not throw while rendering).
 */
export function toDateTimeLocal(text: string): string {
  if (!text || isImpossibleCalendarDate(text)) return "";
  const date = new Date(HAS_OFFSET.test(text.replace(/z$/, "Z")) ? text : `${text}Z`);
  return inTimeRange(date) ? date.toISOString().slice(0, 16) : "";
}

/** Epoch seconds beyond this (year 5138) are almost certainly milliseconds sent by mistake. */
export const MAX_EPOCH_SECONDS = 1e11;

/** Epoch seconds (a JSON number) → Date: a producer's `observed_at`, a settlement's `applied_at`. */
export const epochSecondsSchema = z.number()
  .refine(Number.isFinite, "must be a finite number of epoch seconds")
  .refine((n) => n >= 0, "must not be before 1970-01-01")
  .refine((n) => n < MAX_EPOCH_SECONDS, "is too large for epoch seconds (milliseconds sent by mistake?)")
  .transform((n) => new Date(Math.round(n * 1000)));
