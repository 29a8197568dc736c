import { createHash, createHmac } from "node:crypto";
import { canonicalJson } from "../json/canonical";
import { keyIds, type AuditKey, type AuditKeyring } from "./keys";

// The audit trail is a hash chain: each event's hash covers its content and the previous event's hash, so
// changing, removing or reordering any stored event breaks every later link. Content is hashed in RFC 8785
// canonical JSON, because jsonb does not keep key order and the chain must verify from what is read back.
// A plain hash can be recomputed by anyone who can write the table, so events are MAC'd (HMAC-SHA256) under an
// audit key the database does not hold (keys.ts); events written before the chain was keyed keep their SHA-256.

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

const chainText = (prevHash: string, body: AuditBody) => `{${body.head},"prevHash":${JSON.stringify(prevHash)},${body.tail}}`;

/** The unkeyed hash of events written before the chain was keyed: verified, never written any more. */
export function chainHash(prevHash: string, body: AuditBody): string {
  return createHash("sha256").update(chainText(prevHash, body)).digest("hex");
}

/** A keyed event's hash: HMAC-SHA256 under the chain key, over the key's id and the same canonical text. */
export function chainMac(key: AuditKey, prevHash: string, body: AuditBody): string {
  return createHmac("sha256", key.chain).update(`redrive-audit-v2\u0000${key.id}\u0000`).update(chainText(prevHash, body)).digest("hex");
}

export function auditHash(prevHash: string, content: AuditContent): string {
  return chainHash(prevHash, auditBody(content));
}

export function auditMac(key: AuditKey, prevHash: string, content: AuditContent): string {
  return chainMac(key, prevHash, auditBody(content));
}

/**
 * Key changes are events of the chain: `audit.key_rotated`, MAC'd by the outgoing key, names the incoming one
 * (target id); the next event must be MAC'd by it. `audit.chain_keyed` is the first keyed event after events
 * hashed without a key: from it on, rewriting anything before it breaks its MAC.
 */
export const KEY_ROTATED = "audit.key_rotated";
export const CHAIN_KEYED = "audit.chain_keyed";

export interface StoredAuditEvent extends AuditContent {
  id: string;
  prevHash: string;
  hash: string;
  /** the key that MAC'd it; null: hashed with SHA-256 before the chain was keyed */
  keyId: string | null;
}

export type ChainBreak = { id: string; problem: string };

/** Where a walk stands: the last event's hash and key, and the key a rotation it recorded hands over to. */
export interface ChainCursor {
  hash: string;
  keyId: string | null;
  rotatesTo: string | null;
}

export const CHAIN_START: ChainCursor = { hash: GENESIS_HASH, keyId: null, rotatesTo: null };

const short = (h: string) => `${h.slice(0, 12)}…`;

/** One event's link, key and hash checked against where the walk stands: the problem, or null. */
function linkProblem(e: StoredAuditEvent, at: ChainCursor, keys: AuditKeyring): string | null {
  if (e.prevHash !== at.hash) return `prev_hash ${short(e.prevHash)} does not match the previous event's hash ${short(at.hash)}`;
  let expected: string;
  if (e.keyId === null) {
    // Once keyed, always keyed: an unkeyed event after a keyed one was written by someone without the key.
    if (at.keyId !== null) return `it carries no MAC but follows events MAC'd with key ${at.keyId}: it was not written by Redrive`;
    expected = auditHash(e.prevHash, e);
  } else {
    const key = keys.byId.get(e.keyId);
    if (!key) {
      return `it is MAC'd with key ${e.keyId}, which this verifier does not hold (it holds ${keyIds(keys)}): set REDRIVE_AUDIT_KEY or REDRIVE_AUDIT_RETIRED_KEYS`;
    }
    // A retired key cannot continue the chain after its successor took over, nor hand over to a key it did not name.
    if (at.keyId !== null && e.keyId !== at.keyId && at.rotatesTo !== e.keyId) {
      return `its key ${e.keyId} follows key ${at.keyId} without a rotation event naming it`;
    }
    if (at.rotatesTo !== null && e.keyId !== at.rotatesTo)
      return `the previous event rotated to key ${at.rotatesTo}, but this one is MAC'd with ${e.keyId}`;
    expected = auditMac(key, e.prevHash, e);
  }
  if (expected !== e.hash) return `content does not match its hash (stored ${short(e.hash)}, computed ${short(expected)})`;
  return null;
}

export function advance(e: StoredAuditEvent): ChainCursor {
  return { hash: e.hash, keyId: e.keyId, rotatesTo: e.keyId !== null && e.action === KEY_ROTATED ? e.targetId : null };
}

/**
 * Walks events in id order from `start`; returns the first broken link, or null and where the walk ended when
 * the chain is intact.
 */
export function verifyChain(
  events: Iterable<StoredAuditEvent>,
  keys: AuditKeyring,
  start: ChainCursor = CHAIN_START,
): { broken: ChainBreak; at: ChainCursor } | { broken: null; at: ChainCursor } {
  let at = start;
  for (const e of events) {
    const problem = linkProblem(e, at, keys);
    if (problem) return { broken: { id: e.id, problem }, at };
    at = advance(e);
  }
  return { broken: null, at };
}
