import "server-only";
import type pg from "pg";
import { copyIn } from "../db/copy";
import { copyField, copyJson, copyJsonText } from "../db/copy-text";
import { CanonicalJson } from "../json/canonical";
import { redactSecrets } from "../masking/url";
import { auditBody, chainHash, GENESIS_HASH, type AuditBody, type AuditContent } from "./chain";

// Appending serialises on one advisory lock so the chain has a single order; callers pass the transaction
// that made the state change, so the change and its audit event commit (or roll back) together.

const AUDIT_CHAIN_LOCK = 0x5245_4431; // "RED1"

export type AuditInput = Omit<
  AuditContent,
  "at" | "before" | "after" | "diff" | "reason" | "requestId" | "actorId" | "actorEmail" | "actorRole" | "targetId"
> &
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

/**
 * Credentials in URLs inside an event's body or reason (a webhook's or sink's `?api_key=`, `user:pass@`) are
 * redacted before they enter the chain: /api/audit serves bodies to auditors and admins, and an event can never be
 * edited afterwards. Callers show configuration through its redacted view already; this catches what slips past.
 * Canonical JSON (ingest's record batches) is record data, kept as received.
 */
function withoutCredentials(v: unknown): unknown {
  if (typeof v === "string") return redactSecrets(v);
  if (v === null || typeof v !== "object" || v instanceof CanonicalJson) return v;
  if (Array.isArray(v)) return v.map(withoutCredentials);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutCredentials(x)]));
}

/** A JSON column's COPY field: canonical JSON spliced in as it is rather than parsed and written again. */
function jsonField(v: unknown): string {
  return v instanceof CanonicalJson ? copyJsonText(v.text) : copyJson(v);
}

/**
 * An event's COPY text between its id and its chain link (at … request_id, appendAudit's column order): built
 * before the chain's lock, which then only adds id, previous hash and hash.
 */
function copyMiddle(r: AuditContent): string {
  return [
    r.at,
    copyField(r.actorId),
    copyField(r.actorEmail),
    copyField(r.actorRole),
    copyField(r.action),
    copyField(r.targetType),
    copyField(r.targetId),
    jsonField(r.before),
    jsonField(r.after),
    jsonField(r.diff),
    copyField(r.reason),
    copyField(r.requestId),
  ].join("\t");
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
    before: withoutCredentials(plain(e.before)),
    after: withoutCredentials(plain(e.after)),
    diff: withoutCredentials(plain(e.diff)),
    reason: e.reason == null ? null : redactSecrets(e.reason),
    requestId: e.requestId ?? null,
  };
}

/** Events ready to chain: normalised, serialised and canonicalized (all but the link to the previous hash). */
export interface PreparedAudit {
  prepared: true;
  events: { body: AuditBody; copy: string }[];
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
      return { body: auditBody(c), copy: copyMiddle(c) };
    }),
  };
}

/** Appends events in order inside `client`'s open transaction; returns their ids, in the same order. */
export async function appendAudit(client: pg.PoolClient, input: AuditInput[] | PreparedAudit, now: Date): Promise<string[]> {
  const { events } = Array.isArray(input) ? prepareAudit(input, now) : input;
  if (events.length === 0) return [];
  // The lock in its own statement: the next one's snapshot must see the last event committed before it.
  await client.query("SELECT pg_advisory_xact_lock($1)", [AUDIT_CHAIN_LOCK]);
  // COPY with ids taken here, under the chain's lock, so ascending ids are the chain's order: COPY has no
  // RETURNING, and an INSERT from one JSON document parsed a batch's ~400 kB ingest event four times over (the
  // ::json cast, json_array_elements, json_to_record, jsonb) where COPY parses it once.
  // The chain continues from its head (audit_head), not from whatever event is last now: events deleted from
  // the end then leave the next event pointing at a hash nobody has, which verify reports.
  const head = await client.query<{ hash: string | null; ids: string[] }>(
    `SELECT (SELECT last_hash FROM audit_head WHERE id = 1) AS hash,
       ARRAY(SELECT nextval('audit_event_id_seq')::text FROM generate_series(1, $1)) AS ids`,
    [events.length],
  );
  let prev = head.rows[0]?.hash ?? GENESIS_HASH;
  const taken = (head.rows[0]?.ids ?? [])
    .map(BigInt)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);
  const text = events
    .map(({ body, copy }, i) => {
      const hash = chainHash(prev, body);
      const line = `${taken[i] as string}\t${copy}\t${prev}\t${hash}\n`;
      prev = hash;
      return line;
    })
    .join("");
  await copyIn(
    client,
    `COPY audit_event (id, at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after,
    diff, reason, request_id, prev_hash, hash) FROM STDIN`,
    text,
  );
  // The head moves with the chain, in this transaction: a chain whose last events were deleted still links up,
  // but no longer reaches the head (verify.ts).
  await client.query(`UPDATE audit_head SET last_id = $1, last_hash = $2 WHERE id = 1`, [taken[taken.length - 1], prev]);
  return taken;
}
