import type pg from "pg";
import { auditBody, chainHash, GENESIS_HASH, type AuditBody, type AuditContent } from "./chain";

// Appending serialises on one advisory lock so the chain has a single order; callers pass the transaction
// that made the state change, so the change and its audit event commit (or roll back) together.

const AUDIT_CHAIN_LOCK = 0x5245_4431; // "RED1"

export type AuditInput = Omit<AuditContent, "at" | "before" | "after" | "diff" | "reason" | "requestId" | "actorId" | "actorEmail" | "actorRole" | "targetId"> &
  Partial<Pick<AuditContent, "before" | "after" | "diff" | "reason" | "requestId" | "actorId" | "actorEmail" | "actorRole" | "targetId">>;

export interface Actor {
  id: string | null;
  email: string | null;
  role: string | null;
}

export const SYSTEM_ACTOR: Actor = { id: null, email: "system", role: "system" };

function normalise(e: AuditInput, at: Date): AuditContent {
  return {
    at: at.toISOString(),
    actorId: e.actorId ?? null,
    actorEmail: e.actorEmail ?? null,
    actorRole: e.actorRole ?? null,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId ?? null,
    // Round-trip through JSON so what we hash is exactly what jsonb will give back (no undefined, no Dates).
    before: e.before === undefined ? null : JSON.parse(JSON.stringify(e.before)),
    after: e.after === undefined ? null : JSON.parse(JSON.stringify(e.after)),
    diff: e.diff === undefined ? null : JSON.parse(JSON.stringify(e.diff)),
    reason: e.reason ?? null,
    requestId: e.requestId ?? null,
  };
}

/** Events ready to chain: normalised, serialised and canonicalized (all but the link to the previous hash). */
export interface PreparedAudit {
  prepared: true;
  events: { c: AuditContent; body: AuditBody; before: string | null; after: string | null; diff: string | null }[];
}

/**
 * The work of appending that needs no lock: callers that wait before appending (ingest waits for the previous
 * batch's commit) prepare first, so the chain's lock is held only for the hashes and the insert.
 */
export function prepareAudit(events: AuditInput[], now: Date): PreparedAudit {
  return {
    prepared: true,
    events: events.map((e) => {
      const c = normalise(e, now);
      const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
      return { c, body: auditBody(c), before: json(c.before), after: json(c.after), diff: json(c.diff) };
    }),
  };
}

/** Appends events in order inside `client`'s open transaction. */
export async function appendAudit(client: pg.PoolClient, input: AuditInput[] | PreparedAudit, now: Date): Promise<void> {
  const { events } = Array.isArray(input) ? prepareAudit(input, now) : input;
  if (events.length === 0) return;
  await client.query("SELECT pg_advisory_xact_lock($1)", [AUDIT_CHAIN_LOCK]);
  const last = await client.query<{ hash: string }>("SELECT hash FROM audit_event ORDER BY id DESC LIMIT 1");
  let prev = last.rows[0]?.hash ?? GENESIS_HASH;
  const cols: unknown[][] = Array.from({ length: 14 }, () => []);
  for (const { c, body, before, after, diff } of events) {
    const hash = chainHash(prev, body);
    const row = [c.at, c.actorId, c.actorEmail, c.actorRole, c.action, c.targetType, c.targetId, before, after, diff, c.reason, c.requestId, prev, hash];
    row.forEach((v, i) => cols[i]!.push(v));
    prev = hash;
  }
  // ORDER BY ord makes the ids follow the chain order.
  await client.query(
    `INSERT INTO audit_event (at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after,
       diff, reason, request_id, prev_hash, hash)
     SELECT at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after, diff, reason,
       request_id, prev_hash, hash
     FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::jsonb[], $9::jsonb[], $10::jsonb[], $11::text[], $12::text[], $13::text[], $14::text[])
     WITH ORDINALITY AS t(at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after, diff,
       reason, request_id, prev_hash, hash, ord)
     ORDER BY ord`,
    cols,
  );
}
