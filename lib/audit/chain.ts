import { createHash } from "node:crypto";
import { canonicalJson } from "../json/canonical";

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

/**
 * The canonical JSON of an event's content around the place where `prevHash` goes. RFC 8785 writes members in
 * key order, and "prevHash" sorts between "diff" and "reason", so the hashed text is
 * `{<members action…diff>,"prevHash":"…",<members reason…targetType>}`. Splitting it lets the expensive part
 * (canonicalizing payloads) run before the chain's lock is taken; only the cheap splice and SHA-256 run under it.
 */
export interface AuditBody {
  head: string;
  tail: string;
}

const inner = (o: Record<string, unknown>) => canonicalJson(o).slice(1, -1);

export function auditBody(content: AuditContent): AuditBody {
  // Pick the fields one by one: a stored event also carries id and hash, which must not be hashed. Every field
  // is present (null when empty), so neither half is ever empty.
  const { at, actorId, actorEmail, actorRole, action, targetType, targetId, before, after, diff, reason, requestId } = content;
  return {
    head: inner({ action, actorEmail, actorId, actorRole, after, at, before, diff }),
    tail: inner({ reason, requestId, targetId, targetType }),
  };
}

export function chainHash(prevHash: string, body: AuditBody): string {
  return createHash("sha256")
    .update(`{${body.head},"prevHash":${JSON.stringify(prevHash)},${body.tail}}`)
    .digest("hex");
}

export function auditHash(prevHash: string, content: AuditContent): string {
  return chainHash(prevHash, auditBody(content));
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
