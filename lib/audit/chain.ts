import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

// The audit trail is a hash chain: each event's hash covers its content and the previous event's hash, so
// changing, removing or reordering any stored event breaks every later link. Content is hashed in RFC 8785
// canonical JSON, because jsonb does not keep key order and the chain must verify from what is read back.

export const GENESIS_HASH = "0".repeat(64);

export interface AuditContent {
  at: string; // ISO 8601 with milliseconds (the column's precision)
  actorId: string | null;
  actorEmail: string | null;
  actorRole: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
  diff: unknown;
  reason: string | null;
  requestId: string | null;
}

export function auditHash(prevHash: string, content: AuditContent): string {
  // Pick the fields one by one: a stored event also carries id and hash, which must not be hashed.
  const { at, actorId, actorEmail, actorRole, action, targetType, targetId, before, after, diff, reason, requestId } = content;
  const body =
    canonicalize({ at, actorId, actorEmail, actorRole, action, targetType, targetId, before, after, diff, reason, requestId, prevHash }) ?? "";
  return createHash("sha256").update(body).digest("hex");
}

export interface StoredAuditEvent extends AuditContent {
  id: string;
  prevHash: string;
  hash: string;
}

export type ChainBreak = { id: string; problem: string };

/** Walks events in id order; returns the first broken link, or null when the chain is intact. */
export function verifyChain(events: Iterable<StoredAuditEvent>, startHash = GENESIS_HASH): ChainBreak | null {
  let prev = startHash;
  for (const e of events) {
    if (e.prevHash !== prev) {
      return { id: e.id, problem: `prev_hash ${e.prevHash.slice(0, 12)}… does not match the previous event's hash ${prev.slice(0, 12)}…` };
    }
    const expected = auditHash(e.prevHash, e);
    if (expected !== e.hash) {
      return { id: e.id, problem: `content does not match its hash (stored ${e.hash.slice(0, 12)}…, computed ${expected.slice(0, 12)}…)` };
    }
    prev = e.hash;
  }
  return null;
}
