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
  let cursor = "0";
  let prevHash = GENESIS_HASH;
  let verified = 0;
  for (;;) {
    // Ordered by the bigint column, not the text alias (which would sort "10" before "2").
    const { rows } = await pool.query<AuditEventRow>(
      `SELECT ${AUDIT_EVENT_COLUMNS}
         FROM audit_event WHERE audit_event.id > $1::bigint ORDER BY audit_event.id LIMIT $2`,
      [cursor, batchSize],
    );
    if (rows.length === 0) return { ok: true, verified };
    const events = rows.map(toStored);
    const broken = verifyChain(events, prevHash);
    if (broken) {
      return { ok: false, verified: verified + events.findIndex((e) => e.id === broken.id), broken };
    }
    verified += events.length;
    const last = events[events.length - 1] as StoredAuditEvent;
    prevHash = last.hash;
    cursor = last.id;
    opts.onProgress?.(verified);
    if (rows.length < batchSize) return { ok: true, verified };
  }
}
