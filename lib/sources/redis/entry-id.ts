// Redis stream entry ids are "<milliseconds>-<sequence>": the milliseconds are the server's clock when the
// entry was added (or a producer's explicit id), so they date the entry.

const ENTRY_ID = /^(\d{1,20})-(\d{1,20})$/;

/** The entry's time as ISO 8601 UTC, or null when the id is not a stream id or its time is out of range. */
export function entryIdTime(id: string): string | null {
  const m = ENTRY_ID.exec(id);
  if (!m?.[1]) return null;
  const ms = Number(m[1]);
  const d = new Date(ms);
  return Number.isSafeInteger(ms) && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}

/** "(<id>": the exclusive range start XPENDING and XRANGE take, to page on after the last id seen. */
export function after(id: string): string {
  return `(${id}`;
}

/**
 * Unique within the source and stable across re-deliveries: the stream read and the entry's id. Redis keeps no
 * creation identity for a stream; none is needed while ids are the server's (`XADD *`): they are times, and a
 * stream created again under its name gets ids from its creation on, never an old one. A producer that chooses
 * its own ids can repeat one: then the body tells the messages apart (lib/sources/seen-messages.ts).
 */
export function positionOf(stream: string, id: string): string {
  return `${stream}:${id}`;
}
