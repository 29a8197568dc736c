import "server-only";
import type pg from "pg";
import { copyIn } from "../db/copy";
import { copyField, copyJson, copyJsonText } from "../db/copy-text";
import { CanonicalJson } from "../json/canonical";
import { AppError } from "../errors/app-error";
import { redactSecrets } from "../masking/url";
import { auditActor, SYSTEM_ACTOR } from "./actor";
import { auditBody, chainMac, CHAIN_KEYED, GENESIS_HASH, KEY_ROTATED, type AuditBody, type AuditContent } from "./chain";
import { configuredAuditKeys } from "./configured-keys";
import type { AuditKey, AuditKeyring } from "./keys";

// Appending serialises on the chain's head row so the chain has a single order; callers pass the transaction
// that made the state change, so the change and its audit event commit (or roll back) together.

export type AuditInput = Omit<
  AuditContent,
  "at" | "before" | "after" | "diff" | "reason" | "requestId" | "actorId" | "actorEmail" | "actorRole" | "targetId"
> &
  Partial<Pick<AuditContent, "before" | "after" | "diff" | "reason" | "requestId" | "actorId" | "actorEmail" | "actorRole" | "targetId">>;

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
export async function appendAudit(
  client: pg.PoolClient,
  input: AuditInput[] | PreparedAudit,
  now: Date,
  keys: AuditKeyring = configuredAuditKeys(),
): Promise<string[]> {
  const { events } = Array.isArray(input) ? prepareAudit(input, now) : input;
  if (events.length === 0) return [];
  return appendLocked(client, events, now, keys);
}

/**
 * Makes the chain's head an event MAC'd by the current key — recording that the chain became keyed, or the
 * rotation to this key — when it is not already; nothing otherwise. `redrive audit checkpoint` runs it first, so
 * it signs a head that is under the key it signs with.
 */
export async function keyAuditChain(client: pg.PoolClient, now: Date, keys: AuditKeyring = configuredAuditKeys()): Promise<void> {
  await appendLocked(client, [], now, keys);
}

/**
 * The events an append writes before its own when the head is not under the current key: `audit.chain_keyed`
 * after events hashed without a key, or `audit.key_rotated`, MAC'd by the outgoing key, naming the new one.
 */
function keyChange(
  head: { lastId: string; keyId: string | null },
  keys: AuditKeyring,
  now: Date,
): { key: AuditKey; event: PreparedAudit["events"][number] } | null {
  const to = keys.current;
  if (head.keyId === to.id) return null;
  if (head.keyId === null) {
    if (head.lastId === "0") return null; // an empty chain is keyed from its first event
    const [event] = prepareAudit(
      [
        {
          ...auditActor(SYSTEM_ACTOR),
          action: CHAIN_KEYED,
          targetType: "audit_key",
          targetId: to.id,
          after: { keyId: to.id, unkeyedThrough: head.lastId },
        },
      ],
      now,
    ).events;
    return { key: to, event: event! };
  }
  const from = keys.byId.get(head.keyId);
  if (!from) {
    throw new AppError(
      "internal",
      `the audit chain's head is MAC'd with key ${head.keyId}, which this process does not hold (its key is ${to.id}): to rotate, keep the old key in REDRIVE_AUDIT_RETIRED_KEYS; a process still on an old key must be restarted with the new REDRIVE_AUDIT_KEY`,
    );
  }
  const [event] = prepareAudit(
    [
      {
        ...auditActor(SYSTEM_ACTOR),
        action: KEY_ROTATED,
        targetType: "audit_key",
        targetId: to.id,
        before: { keyId: from.id },
        after: { keyId: to.id },
      },
    ],
    now,
  ).events;
  return { key: from, event: event! };
}

async function appendLocked(client: pg.PoolClient, events: PreparedAudit["events"], now: Date, keys: AuditKeyring): Promise<string[]> {
  // Appenders serialise on the chain's head row (audit_head, one row from its migration on, never deleted),
  // locked until commit, so the chain has a single order. Locking returns the newest committed head (READ
  // COMMITTED re-reads a row it waited for), and the ids are drawn after the lock (their sub-select first counts
  // the locked row), so ascending ids are the chain's order. Ids are taken here because COPY has no
  // RETURNING, and an INSERT from one JSON document parsed a batch's ~400 kB ingest event four times over (the
  // ::json cast, json_array_elements, json_to_record, jsonb) where COPY parses it once.
  // The chain continues from its head (audit_head), not from whatever event is last now: events deleted from
  // the end then leave the next event pointing at a hash nobody has, which verify reports.
  const head = await client.query<{ hash: string | null; last_id: string | null; key_id: string | null; ids: string[] }>(
    `WITH h AS MATERIALIZED (SELECT last_hash, last_id, key_id FROM audit_head WHERE id = 1 FOR UPDATE)
     SELECT h.last_hash AS hash, h.last_id::text AS last_id, h.key_id,
       ARRAY(SELECT nextval('audit_event_id_seq')::text FROM generate_series(1, $1) WHERE (SELECT count(*) FROM h) = 1) AS ids
     FROM h`,
    [events.length],
  );
  if (head.rows.length === 0) throw new AppError("internal", "the audit chain's head (audit_head) is missing: run the migrations");
  const row = head.rows[0];
  const change = keyChange({ lastId: row?.last_id ?? "0", keyId: row?.key_id ?? null }, keys, now);
  const signed: { key: AuditKey; body: AuditBody; copy: string }[] = events.map((e) => ({ key: keys.current, ...e }));
  const ids = row?.ids ?? [];
  if (change) {
    // Rare (once per key): one more id, and the lowest of them all goes to the key change, which comes first.
    signed.unshift({ key: change.key, ...change.event });
    ids.push((await client.query<{ id: string }>(`SELECT nextval('audit_event_id_seq')::text AS id`)).rows[0]!.id);
  }
  if (signed.length === 0) return [];
  let prev = row?.hash ?? GENESIS_HASH;
  const taken = ids
    .map(BigInt)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);
  const text = signed
    .map(({ key, body, copy }, i) => {
      const hash = chainMac(key, prev, body);
      const line = `${taken[i] as string}\t${copy}\t${prev}\t${hash}\t${key.id}\n`;
      prev = hash;
      return line;
    })
    .join("");
  await copyIn(
    client,
    `COPY audit_event (id, at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after,
    diff, reason, request_id, prev_hash, hash, key_id) FROM STDIN`,
    text,
  );
  // The head moves with the chain, in this transaction: a chain whose last events were deleted still links up,
  // but no longer reaches the head (verify.ts).
  await client.query(`UPDATE audit_head SET last_id = $1, last_hash = $2, key_id = $3 WHERE id = 1`, [
    taken[taken.length - 1],
    prev,
    keys.current.id,
  ]);
  return change ? taken.slice(1) : taken;
}
