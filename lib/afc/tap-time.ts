import { parseProducerInstant, type Instant } from "@/lib/time/parse-time";
import { isJsonObject } from "../json/lossless";

/**
 * When a tap was observed, for ordering (oldest first, entity state last write wins) and lookup: its
 * tap_timestamp — RFC 3339, or without an offset read as UTC, as the envelope's own times are. The gate still
 * refuses a naive time (the tap stays in the queue for that), but ordering it by when Redrive first saw it
 * instead put a June tap after a July one and let the stale one win the entity. Null when there is no readable
 * time (or year 0, which PostgreSQL cannot store): the caller falls back to when the record was first seen.
 */
export function tapObservedAt(tap: unknown): Instant | null {
  if (!isJsonObject(tap)) return null;
  const ts = tap["tap_timestamp"];
  const instant = typeof ts === "string" ? parseProducerInstant(ts) : null;
  return instant && instant.date.getUTCFullYear() >= 1 ? instant : null;
}
