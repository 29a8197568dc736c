import type { Origin } from "../connector";
import { entryIdTime, positionOf } from "./entry-id";
import { decodeFields } from "./fields";

/** One entry as read: its id and its field/value byte strings, or null when the id is pending but the entry gone. */
export interface StreamEntry {
  id: string;
  fields: Buffer[] | null;
}

/**
 * dlqStream mode's convention: a producer that copies a dead entry to the dead-letter stream names the stream it
 * came from in `source_stream` and its id there in `source_id`. Both are optional; they stay in the headers too.
 */
export const SOURCE_STREAM_FIELD = "source_stream";
export const SOURCE_ID_FIELD = "source_id";

export type ReadContext =
  /** claimed from the application's group after `deliveryCount` deliveries (as XPENDING reported it) */
  | { mode: "claim"; stream: string; field: string; deliveryCount: number }
  /** read from the dead-letter stream; `stream` is where entries go back when they do not say */
  | { mode: "dead_letter_stream"; dlqStream: string; stream: string; field: string };

export interface Translated {
  body: Buffer;
  origin: Origin;
  problem?: string;
}

export function toPulled(entry: StreamEntry, ctx: ReadContext): Translated {
  const read = ctx.mode === "claim" ? ctx.stream : ctx.dlqStream;
  const decoded = entry.fields === null ? null : decodeFields(entry.fields, ctx.field);
  const headers = decoded?.headers ?? {};
  const named = (f: string) => {
    const v = headers[f];
    return typeof v === "string" && v !== "" ? v : null;
  };

  const origin: Origin =
    ctx.mode === "claim"
      ? {
          sourceType: "redis",
          destination: { type: "redis", stream: ctx.stream, field: ctx.field },
          deathReason: "max_deliveries",
          deliveryCount: ctx.deliveryCount,
          messageId: entry.id,
          position: positionOf(read, entry.id),
          publishedAt: entryIdTime(entry.id),
          // Redis keeps no death time: XPENDING's idle time restarts when Redrive claims the entry.
          diedAt: null,
          headers,
          properties: {},
        }
      : {
          sourceType: "redis",
          destination: { type: "redis", stream: named(SOURCE_STREAM_FIELD) ?? ctx.stream, field: ctx.field },
          deathReason: "dead_letter_stream",
          deliveryCount: null,
          messageId: entry.id,
          position: positionOf(read, entry.id),
          // The dead-letter entry's own id dates the death; the original id (when named) dates the publish.
          publishedAt: entryIdTime(named(SOURCE_ID_FIELD) ?? ""),
          diedAt: entryIdTime(entry.id),
          headers,
          properties: {},
        };

  if (decoded === null) {
    return { body: Buffer.alloc(0), origin, problem: `entry ${entry.id} is no longer in stream "${read}" (trimmed or deleted)` };
  }
  if (decoded.body === null) {
    const had = decoded.names.length ? decoded.names.map((n) => `"${n}"`).join(", ") : "none";
    return { body: Buffer.alloc(0), origin, problem: `entry ${entry.id} has no "${ctx.field}" field (its fields: ${had})` };
  }
  return { body: decoded.body, origin };
}
