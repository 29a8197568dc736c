import "server-only";
import { createHash, createHmac } from "node:crypto";

// The audit chain's hashes are HMACs under a key the database never holds: with only the database (a superuser
// who disables the triggers and recomputes every hash), a rewritten chain no longer verifies. One secret gives two
// keys, one for the chain and one for checkpoints, so a checkpoint's signature can never pass for an event's MAC.

export interface AuditKey {
  /** 16 hex digits naming the key in events and checkpoints (derived from it; does not reveal it) */
  id: string;
  chain: Buffer;
  checkpoint: Buffer;
}

/** The key appends use now, and every key the verifier may meet (the current one and retired ones). */
export interface AuditKeyring {
  current: AuditKey;
  byId: ReadonlyMap<string, AuditKey>;
}

export function auditKey(secret: string): AuditKey {
  const root = createHash("sha256").update(`redrive audit key\u0000${secret}`).digest();
  const derive = (purpose: string) => createHmac("sha256", root).update(purpose).digest();
  return { id: derive("key id").toString("hex").slice(0, 16), chain: derive("chain"), checkpoint: derive("checkpoint") };
}

export function auditKeyring(current: string, retired: readonly string[] = []): AuditKeyring {
  const key = auditKey(current);
  const byId = new Map<string, AuditKey>(retired.map((s) => auditKey(s)).map((k) => [k.id, k]));
  byId.set(key.id, key);
  return { current: key, byId };
}

/** The ids a keyring holds, for messages ("holds 1a2b…, 3c4d…"). */
export function keyIds(keys: AuditKeyring): string {
  return [...keys.byId.keys()].join(", ");
}
