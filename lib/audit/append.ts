import type pg from "pg";
import { CanonicalJson } from "./canonical-json";
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

/**
 * Round-trip through JSON so what we hash is exactly what jsonb will give back (no undefined, no Dates). Text
 * that is already canonical JSON (ingest prepares it on a worker thread) came from JSON values: kept as is.
 */
function plain(v: unknown): unknown {
  if (v === undefined) return null;
  return v instanceof CanonicalJson ? v : JSON.parse(JSON.stringify(v));
}

/** One event's row as JSON text, canonical JSON spliced in as it is rather than parsed and written again. */
function rowJson(row: Record<string, unknown>): string {
  const spliced: string[] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof CanonicalJson) spliced.push(`${JSON.stringify(k)}:${v.text}`);
    else rest[k] = v;
  }
  const text = JSON.stringify(rest);
  return spliced.length === 0 ? text : `${text.slice(0, -1)},${spliced.join(",")}}`;
}

function normalise(e: AuditInput, at: Date): AuditContent {
  return {
    at: at.toISOString(),
    actorId: e.actorId ?? null,
    actorEmail: e.actorEmail ?? null,
    actorRole: e.actorRole ?? null,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId ?? null,
    before: plain(e.before),
    after: plain(e.after),
    diff: plain(e.diff),
    reason: e.reason ?? null,
    requestId: e.requestId ?? null,
  };
}

/** Events ready to chain: normalised, serialised and canonicalized (all but the link to the previous hash). */
export interface PreparedAudit {
  prepared: true;
  events: { c: AuditContent; body: AuditBody }[];
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
      return { c, body: auditBody(c) };
    }),
  };
}

/** Appends events in order inside `client`'s open transaction; returns their ids, in the same order. */
export async function appendAudit(client: pg.PoolClient, input: AuditInput[] | PreparedAudit, now: Date): Promise<string[]> {
  const { events } = Array.isArray(input) ? prepareAudit(input, now) : input;
  if (events.length === 0) return [];
  await client.query("SELECT pg_advisory_xact_lock($1)", [AUDIT_CHAIN_LOCK]);
  const last = await client.query<{ hash: string }>("SELECT hash FROM audit_event ORDER BY id DESC LIMIT 1");
  let prev = last.rows[0]?.hash ?? GENESIS_HASH;
  const rows = events.map(({ c, body }) => {
    const hash = chainHash(prev, body);
    const row = { ...c, prevHash: prev, hash };
    prev = hash;
    return row;
  });
  // One JSON document (json_to_recordset) rather than 14 parameter arrays: see store.ts. WITH ORDINALITY and
  // ORDER BY ord make the ids follow the chain order.
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO audit_event (at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after,
       diff, reason, request_id, prev_hash, hash)
     SELECT t.at, t."actorId", t."actorEmail", t."actorRole", t.action, t."targetType", t."targetId", t.before, t.after, t.diff,
       t.reason, t."requestId", t."prevHash", t.hash
     FROM json_array_elements($1::json) WITH ORDINALITY AS e(row, ord),
       json_to_record(e.row) AS t(at timestamptz, "actorId" text, "actorEmail" text, "actorRole" text, action text, "targetType" text,
         "targetId" text, before jsonb, after jsonb, diff jsonb, reason text, "requestId" text, "prevHash" text, hash text)
     ORDER BY e.ord
     RETURNING id::text AS id`,
    [`[${rows.map(rowJson).join(",")}]`],
  );
  // Ids are taken in insert order (ORDER BY ord), so ascending ids are the events' order.
  return inserted.rows.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}
