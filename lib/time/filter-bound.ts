import { z } from "zod";
import { endOfDay, startOfDay, utcMicrosOfDate } from "./instant";
import { parseEpochText, parseProducerInstant } from "./parse-time";
import { inTimeRange, isImpossibleCalendarDate } from "./range";

const TO_THE_MINUTE = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2})([Zz]|[+-]\d{2}:\d{2})?$/;
const BARE_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time bound of a filter as UTC text to the microsecond (lib/time/instant.ts), as observed_at is stored: through
 * a JavaScript Date, `to=<a record's observedAt>` lost the record's last microseconds and left it out. Takes RFC
 * 3339 (either case, naive read as UTC, seconds optional) and epoch seconds. A bare day (UTC) is its first
 * microsecond as `from` and its last as `to`, so `from=D&to=D` is the whole day, as picking the day on the list
 * does. Nothing else: JavaScript's Date reads looser text ("Jan 1 2026", a time without seconds) in the server's
 * own time zone, so one link or CLI filter selected different records on different hosts. Null when none.
 */
function exactTime(v: unknown, bound: "from" | "to"): string | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : utcMicrosOfDate(v);
  if (typeof v !== "string") return null;
  if (/^\d+(\.\d+)?$/.test(v)) return parseEpochText(v)?.exact ?? null;
  // A day that does not exist (2026-02-30) is refused rather than rolled over into the next month (the times
  // below are refused by parseProducerInstant).
  if (BARE_DAY.test(v)) return isImpossibleCalendarDate(v) ? null : bound === "from" ? startOfDay(v) : endOfDay(v);
  const minute = TO_THE_MINUTE.exec(v);
  if (minute) return parseProducerInstant(`${minute[1]}:${bound === "from" ? "00" : "59.999999"}${minute[2] ?? ""}`)?.exact ?? null;
  return parseProducerInstant(v)?.exact ?? null;
}

/** A filter's `from` or `to`, as UTC text to the microsecond; the 422 names the forms it takes. */
export function timeBoundSchema(bound: "from" | "to") {
  return z.unknown().transform((v, ctx): string => {
    const exact = exactTime(v, bound);
    if (exact === null) {
      ctx.addIssue({
        code: "custom",
        message: "must be an RFC 3339 time (without an offset: UTC), a day YYYY-MM-DD (UTC) or epoch seconds",
      });
      return z.NEVER;
    }
    if (!inTimeRange(new Date(exact))) {
      ctx.addIssue({ code: "custom", message: "must be between the years 0001 and 9999" });
      return z.NEVER;
    }
    return exact;
  });
}
