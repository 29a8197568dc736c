import { createHash } from "node:crypto";

// Which pulled messages a source has stored before. A message is known by its position (each broker type makes
// it name one message instance: see lib/sources/<type>/origin.ts) and by the SHA-256 of its body. The same
// position with the same body is the same dead letter handed out again (a crash before the ack): nothing to store,
// nothing to count. The same position with another body is a different dead letter that happens to sit where an
// old one sat (a stream or topic deleted and re-created under its name, a producer reusing an id): it is stored
// and counted like any new arrival, never acknowledged away. Pure.

/** What the source_message table holds for one stored message. */
export interface KnownMessage {
  position: string;
  /** hex SHA-256 of the body; '' for rows written before bodies were hashed (matches any body, as then) */
  bodyHash: string;
}

export interface Arrival {
  position: string;
  bodyHash: string;
  /** the broker said where the message was but its body is gone: nothing to tell it apart by */
  bodyGone: boolean;
}

export function bodyHash(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/**
 * The arrivals to store, in their order: one per (position, body) in the page, and none that the source stored
 * before. A message whose body is gone at a known position is the known one, its body since deleted (NATS deletes
 * the stream message before acknowledging its advisory; a crash in between leaves only the advisory).
 */
export function unseen<T extends Arrival>(arrivals: readonly T[], known: readonly KnownMessage[]): T[] {
  const byPosition = new Map<string, Set<string>>();
  for (const k of known) {
    const hashes = byPosition.get(k.position) ?? new Set<string>();
    hashes.add(k.bodyHash);
    byPosition.set(k.position, hashes);
  }
  const out: T[] = [];
  for (const a of arrivals) {
    const hashes = byPosition.get(a.position);
    if (hashes && (a.bodyGone || hashes.has(a.bodyHash) || hashes.has(""))) continue;
    const seen = hashes ?? new Set<string>();
    seen.add(a.bodyHash);
    byPosition.set(a.position, seen);
    out.push(a);
  }
  return out;
}
