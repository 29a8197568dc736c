import "server-only";
import type pg from "pg";
import { GENESIS_HASH, verifyChain, type ChainBreak, type StoredAuditEvent } from "./chain";
import { AUDIT_EVENT_COLUMNS, type AuditEventRow } from "./row";

// Re-walks the whole hash chain from the database in id order, a page at a time (keyset pagination on the
// primary key), so memory stays flat however long the trail is. Each page continues from the hash of the
// previous page's last event.

export const VERIFY_BATCH_SIZE = 5_000;

export type VerifyResult = { ok: true; verified: number } | { ok: false; verified: number; broken: ChainBreak };

function toStored(r: AuditEventRow): StoredAuditEvent {
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
  };
}

export async function verifyAuditTrail(
  pool: pg.Pool,
  opts: { batchSize?: number; onProgress?: (verified: number) => void } = {},
): Promise<VerifyResult> {
  const batchSize = opts.batchSize ?? VERIFY_BATCH_SIZE;
  // Read first: events appended while we walk are past it, and the walk must reach it.
  const head = (
    await pool.query<{ last_id: string; last_hash: string }>(`SELECT last_id::text AS last_id, last_hash FROM audit_head WHERE id = 1`)
  ).rows[0];
  const reachesHead = (verified: number, last: StoredAuditEvent | null): VerifyResult => {
    if (!head || head.last_id === "0") return { ok: true, verified };
    if (last && BigInt(last.id) >= BigInt(head.last_id)) return { ok: true, verified };
    return {
      ok: false,
      verified,
      broken: {
        id: head.last_id,
        problem: `the chain ends at ${last ? `event ${last.id}` : "its start"} but its head is event ${head.last_id}: the last events were deleted`,
      },
    };
  };
  let cursor = "0";
  let prevHash = GENESIS_HASH;
  let verified = 0;
  let lastSeen: StoredAuditEvent | null = null;
  for (;;) {
    // Ordered by the bigint column, not the text alias (which would sort "10" before "2").
    const { rows } = await pool.query<AuditEventRow>(
      `SELECT ${AUDIT_EVENT_COLUMNS}
         FROM audit_event WHERE audit_event.id > $1::bigint ORDER BY audit_event.id LIMIT $2`,
      [cursor, batchSize],
    );
    if (rows.length === 0) return reachesHead(verified, lastSeen);
    const events = rows.map(toStored);
    const broken = verifyChain(events, prevHash);
    if (broken) {
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
    verified += events.length;
    const last = events[events.length - 1] as StoredAuditEvent;
    lastSeen = last;
    prevHash = last.hash;
    cursor = last.id;
    opts.onProgress?.(verified);
    if (rows.length < batchSize) return reachesHead(verified, lastSeen);
  }
}
