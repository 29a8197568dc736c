// RFC 3339 timestamps as producers write them. zod's ISO pattern knows only an upper-case "T" and "Z", but
// RFC 3339's ABNF is case-insensitive (§5.6: "t" and "z" are allowed) and lets applications put a space
// between date and time — what Python's str(datetime) writes. Metadata times a producer stored
// (`observed_at`, `first_seen_utc`) also come from naive datetimes (`datetime.utcnow().isoformat()`, no
// offset): those are read as UTC, since rejecting the record would lose the dead letter over its bookkeeping.
import * as z from "zod";
import { inTimeRange, isImpossibleCalendarDate } from "./range";

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
 * An instant to the microsecond, PostgreSQL's precision: `date` (JavaScript's, to the millisecond) for what runs
 * here, and `exact`, its UTC RFC 3339 text to the microsecond ("2024-01-01T00:00:00.123456Z"), for what is
 * stored. Python's isoformat() writes microseconds; cut to milliseconds, two readings of one entity 0.4 ms
 * apart tied, and the stored time no longer matched the producer's logs.
 */
export interface Instant {
  date: Date;
  exact: string;
}

/** The instant `micros` microseconds (rounded; may be 1,000,000) after the whole second `secondMs`. */
function instantAt(secondMs: number, micros: number): Instant | null {
  const carry = micros >= 1e6 ? 1 : 0;
  const us = micros - carry * 1e6;
  const second = new Date(secondMs + carry * 1000);
  if (Number.isNaN(second.getTime())) return null;
  return {
    date: new Date(second.getTime() + Math.floor(us / 1000)),
    exact: `${second.toISOString().slice(0, -5)}.${String(us).padStart(6, "0")}Z`,
  };
}

const FRACTION = /\.(\d+)/;

/**
 * The microseconds of a fraction's digits ("123456789" → 123457), rounded half to even past the sixth digit as
 * PostgreSQL rounds a time it parses; may be 1,000,000 (the caller carries it into the second).
 */
export function microsOfFraction(digits: string): number {
  const micros = Number(digits.slice(0, 6).padEnd(6, "0"));
  const rest = digits.slice(6).replace(/0+$/, "");
  if (rest === "" || rest < "5") return micros;
  return rest === "5" && micros % 2 === 0 ? micros : micros + 1;
}

/**
 * A producer-stored time: RFC 3339 in either case, "T" or a space between date and time, and a naive time
 * (no offset) read as UTC. Seconds are required, as in RFC 3339. Digits past the microsecond round half to
 * even, as PostgreSQL rounds them. Null when it is none of these or not a real calendar date.
 */
export function parseProducerInstant(text: string): Instant | null {
  const c = canonical(text, true);
  if (c === null || !OFFSET_OR_NAIVE.safeParse(c).success) return null;
  const fraction = FRACTION.exec(c)?.[1] ?? "";
  const whole = c.replace(FRACTION, "");
  const second = new Date(HAS_OFFSET.test(whole) ? whole : `${whole}Z`).getTime();
  if (Number.isNaN(second)) return null;
  return instantAt(second, microsOfFraction(fraction));
}

/**
 * Epoch seconds written as text ("1700000000.123456", a query parameter), read from the digits rather than a
 * double so the microsecond is exact; null when it is not such a text or past JavaScript's dates.
 */
export function parseEpochText(text: string): Instant | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  return m ? instantAt(Number(m[1]) * 1000, microsOfFraction(m[2] ?? "")) : null;
}

/**
 * parseProducerInstant with the offset required (RFC 3339 proper, "t"/"z" in either case, a space for the "T"):
 * for times another system states, which are not guessed to be UTC (a ledger's applied_at).
 */
export function parseOffsetInstant(text: string): Instant | null {
  return HAS_OFFSET.test(text.replace(/z$/, "Z")) ? parseProducerInstant(text) : null;
}

/** parseProducerInstant, to the millisecond. */
export function parseProducerTime(text: string): Date | null {
  return parseProducerInstant(text)?.date ?? null;
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

/** Epoch seconds (a JSON number) → the instant, to the microsecond: a producer's `observed_at`, a settlement's `applied_at`. */
// z.custom rather than z.number(): zod's number refuses NaN and ±Infinity with its own words ("Invalid input"),
// and the message below is the one that says what is wrong.
export const epochSecondsSchema = z
  .custom<number>((v) => typeof v === "number", "must be a number of epoch seconds")
  .refine(Number.isFinite, { message: "must be a finite number of epoch seconds", abort: true })
  .refine((n) => n >= 0, "must not be before 1970-01-01")
  .refine((n) => n < MAX_EPOCH_SECONDS, "is too large for epoch seconds (milliseconds sent by mistake?)")
  .transform((n): Instant => {
    const whole = Math.floor(n);
    // A double resolves better than a microsecond below 2^32 s (the year 2106); the lexeme's digits would be
    // exact beyond, but an observation after 2106 is a unit mistake the range check is there for.
    return instantAt(whole * 1000, Math.round((n - whole) * 1e6)) as Instant;
  });
