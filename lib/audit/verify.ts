import "server-only";
import type pg from "pg";
import { advance, CHAIN_START, GENESIS_HASH, verifyChain, type ChainBreak, type ChainCursor, type StoredAuditEvent } from "./chain";
import { checkpointSignatureProblem, extendsCheckpoint, type ChainHead, type Checkpoint } from "./checkpoint";
import { configuredAuditKeys } from "./configured-keys";
import type { AuditKeyring } from "./keys";
import { AUDIT_EVENT_COLUMNS, type AuditEventRow } from "./row";

// Re-walks the whole hash chain from the database in id order, a page at a time (keyset pagination on the
// primary key), so memory stays flat however long the trail is. Each page continues from the hash of the
// previous page's last event.

export const VERIFY_BATCH_SIZE = 5_000;

export type VerifiedHead = ChainHead & { keyId: string | null };

export type VerifyResult =
  { ok: true; verified: number; head: VerifiedHead; notes: string[] } | { ok: false; verified: number; broken: ChainBreak };

/** A row as the chain checks it. */
export function toStored(r: AuditEventRow): StoredAuditEvent {
  return {
    id: r.id,
    at: r.at.toISOString(),
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorRole: r.actor_role,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    before: r.before,
    after: r.after,
    diff: r.diff,
    reason: r.reason,
    requestId: r.request_id,
    prevHash: r.prev_hash,
    hash: r.hash,
    keyId: r.key_id,
  };
}

export async function verifyAuditTrail(
  pool: pg.Pool,
  opts: { batchSize?: number; onProgress?: (verified: number) => void; keys?: AuditKeyring; checkpoint?: Checkpoint } = {},
): Promise<VerifyResult> {
  const batchSize = opts.batchSize ?? VERIFY_BATCH_SIZE;
  const keys = opts.keys ?? configuredAuditKeys();
  const checkpoint = opts.checkpoint;
  if (checkpoint) {
    // A checkpoint we cannot vouch for proves nothing either way: refuse it before walking.
    const problem = checkpointSignatureProblem(checkpoint, keys);
    if (problem) return { ok: false, verified: 0, broken: { id: String(checkpoint.sequence), problem: `the checkpoint: ${problem}` } };
  }
  // Read first: events appended while we walk are past it, and the walk must reach it.
  const head = (
    await pool.query<{ last_id: string; last_hash: string; key_id: string | null }>(
      `SELECT last_id::text AS last_id, last_hash, key_id FROM audit_head WHERE id = 1`,
    )
  ).rows[0];
  let hashAtCheckpoint: string | undefined = checkpoint?.sequence === 0 ? GENESIS_HASH : undefined;
  const finish = (verified: number, last: StoredAuditEvent | null, at: ChainCursor): VerifyResult => {
    const broken = (id: string, problem: string): VerifyResult => ({ ok: false, verified, broken: { id, problem } });
    if (head && head.last_id !== "0" && !(last && BigInt(last.id) >= BigInt(head.last_id))) {
      return broken(
        head.last_id,
        `the chain ends at ${last ? `event ${last.id}` : "its start"} but its head is event ${head.last_id}: the last events were deleted`,
      );
    }
    // Without this, a chain rewritten whole with plain SHA-256 (no key needed) would pass as one never keyed.
    if (last && at.keyId === null) {
      return broken(
        last.id,
        "the chain's last event carries no MAC, so nothing shows the events before it were not rewritten: its next append (or `redrive audit checkpoint`) keys it",
      );
    }
    const verifiedHead: VerifiedHead =
      head && head.last_id !== "0"
        ? { sequence: head.last_id, hash: head.last_hash, keyId: head.key_id }
        : last
          ? { sequence: last.id, hash: last.hash, keyId: last.keyId }
          : { sequence: "0", hash: GENESIS_HASH, keyId: null };
    if (checkpoint) {
      const problem = extendsCheckpoint(checkpoint, verifiedHead, hashAtCheckpoint);
      if (problem) return broken(String(checkpoint.sequence), problem);
    }
    const notes: string[] = [];
    if (verifiedHead.keyId !== null && verifiedHead.keyId !== keys.current.id) {
      notes.push(
        `the chain's last event is MAC'd with retired key ${verifiedHead.keyId}; its next append records the rotation to ${keys.current.id}`,
      );
    }
    return { ok: true, verified, head: verifiedHead, notes };
  };
  let cursor = "0";
  let at: ChainCursor = CHAIN_START;
  let verified = 0;
  let lastSeen: StoredAuditEvent | null = null;
  for (;;) {
    // Ordered by the bigint column, not the text alias (which would sort "10" before "2").
    const { rows } = await pool.query<AuditEventRow>(
      `SELECT ${AUDIT_EVENT_COLUMNS}
         FROM audit_event WHERE audit_event.id > $1::bigint ORDER BY audit_event.id LIMIT $2`,
      [cursor, batchSize],
    );
    if (rows.length === 0) return finish(verified, lastSeen, at);
    const events = rows.map(toStored);
    const walked = verifyChain(events, keys, at);
    if (walked.broken) {
      const broken = walked.broken;
      return { ok: false, verified: verified + events.findIndex((e) => e.id === broken.id), broken };
    }
    const atHead = head ? events.find((e) => e.id === head.last_id) : undefined;
    if (atHead && atHead.hash !== head?.last_hash) {
      return {
        ok: false,
        verified: verified + events.indexOf(atHead),
        broken: { id: atHead.id, problem: "its hash does not match the chain's head: the chain was rewritten from here" },
      };
    }
    if (checkpoint && hashAtCheckpoint === undefined) {
      hashAtCheckpoint = events.find((e) => e.id === String(checkpoint.sequence))?.hash;
    }
    verified += events.length;
    const last = events[events.length - 1] as StoredAuditEvent;
    lastSeen = last;
    at = advance(last);
    cursor = last.id;
    opts.onProgress?.(verified);
    if (rows.length < batchSize) return finish(verified, lastSeen, at);
  }
}
