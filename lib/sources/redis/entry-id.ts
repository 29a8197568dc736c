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

/** Unique within the source and stable across re-deliveries: the stream read and the entry's id. */
export function positionOf(stream: string, id: string): string {
  return `${stream}:${id}`;
}
