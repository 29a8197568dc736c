import "server-only";
import type pg from "pg";
import { reasonGroup } from "../../afc/reason-group";
import { appendAudit, prepareAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { CanonicalJson } from "../../json/canonical";
import { copyIn } from "../../db/copy";
import { isUniqueViolation } from "../../db/pg-errors";
import { copyField } from "../../db/copy-text";
import { batchAuditAfter, keyOf, ROW_COLUMNS, type PreparedRecord } from "./prepare-row";
import { decideKnownKey, type KnownKeyEffect, type RepeatOutcome, type RepeatState } from "./repeat-failure";
import { arrivalsOf, recordGroupArrivals } from "../groups/reopen-groups";
import { ARRIVAL_COLUMNS, arrivalFields, decideArrivals, decideBeforeInsert } from "./rule-decisions";
import { recordRefailures } from "../../rules/rules";
import {
  archivedArrivals,
  archivedRepeat,
  lockArchived,
  moveBack,
  movedBackAudit,
  type ArchivedRow,
  type HeldBody,
  type LockedRow,
} from "./archived-keys";

// Stores a batch of normalized records in the caller's transaction: new keys become rows, known keys (in the
// database or earlier in the same batch) become one more failure attempt on the existing row — what that attempt
// does to the row is decideKnownKey's (repeat-failure.ts): every arrival passes here (HTTP ingest, AFC capture,
// import, broker pulls), so this is where a replayed record comes back to triage — from the archive too
// (archived-keys.ts) — and where one sender cannot change another's record. Raw SQL with COPY and unnest arrays:
// one statement per step whatever the batch size (Prisma's createMany is many times slower).

/**
 * What the sender may be told: a repeat carries what it did (`effect`) and, for the record's own sender, the
 * record's id and its class after this failure (the last retry makes an AFC record poison). Another sender learns
 * neither — `id` and `failureClass` are null, whether or not the record was replayed —; `recordId` is the
 * store's own bookkeeping (a pulled message's position points at it) and never goes into an answer.
 */
export type StoreOutcome =
  | { status: "created"; id: string; recordId: string }
  | {
      status: "duplicate";
      id: string | null;
      failureClass: RepeatState["failureClass"] | null;
      /**
       * `archived`: the key's record has left dead_letter (lib/ops/archive.ts) and this arrival does not change it
       * (it was not replayed); the arrival is audited. A replayed one fails again (`failed_again`), back from the archive.
       */
      effect: KnownKeyEffect | "archived";
      recordId: string;
    };

export interface StoreContext {
  now: Date;
  actor: Actor;
  requestId: string | null;
  /** "ingest" for the API/CLI, "capture" for the AFC tap boundary, "pull" for a broker source */
  origin: "ingest" | "capture" | "pull";
  maxRetries?: number;
  /**
   * Settles when the previous batch of the same stream has committed (rejects when it failed). Awaited after
   * this batch's rows are in and before the audit chain's lock: batches then append to the chain and commit in
   * input order, and a batch never holds that lock while waiting on an earlier one (which would deadlock
   * outside PostgreSQL's view).
   */
  after?: Promise<unknown>;
  /**
   * Settles when the previous batch of the same stream has taken its ids (never rejects); `idsTaken` is called
   * once this batch has. Ids then follow input order across overlapping batches, as they would one by one.
   */
  idsAfter?: Promise<unknown>;
  idsTaken?: () => void;
  /** shared by a stream's batches: whether they meet stored keys (see insertRows) */
  copyHint?: CopyHint;
}

function compareKeys(a: PreparedRecord, b: PreparedRecord): number {
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  const [x, y] = [a.idempotencyKey ?? "", b.idempotencyKey ?? ""];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Stores records prepared by prepareRecord (ingest does that on its normalizing threads). */
export async function storeDeadLetters(client: pg.PoolClient, records: PreparedRecord[], ctx: StoreContext): Promise<StoreOutcome[]> {
  const outcomes: (StoreOutcome | undefined)[] = new Array(records.length);
  // The first record of each key in the batch is the insert candidate; later ones are repeats of it.
  const firstOfKey = new Map<string, number>();
  const candidates: number[] = [];
  records.forEach((r, i) => {
    const k = keyOf(r);
    if (k === null || !firstOfKey.has(k)) {
      if (k !== null) firstOfKey.set(k, i);
      candidates.push(i);
    }
  });

  await ctx.idsAfter;
  const ids = await client.query<{ id: string }>(
    // The sequence by name (a regclass constant): pg_get_serial_sequence() here ran a catalog lookup per row.
    "SELECT nextval('dead_letter_id_seq')::text AS id FROM generate_series(1, $1)",
    [candidates.length],
  );
  ctx.idsTaken?.();
  // The active triage rules decide the new records before they go in, from what ingest gathered (rule-decisions.ts):
  // a decided record is inserted decided, in this transaction, rather than inserted and updated.
  const verdicts = await decideBeforeInsert(
    client,
    candidates.map((i, n) => ({ id: ids.rows[n]!.id, record: records[i] as PreparedRecord })),
  );
  const heads = candidates.map((i, n) => {
    const id = ids.rows[n]!.id;
    return { id, head: arrivalFields((records[i] as PreparedRecord).status, verdicts?.decisions.get(id)) };
  });
  // Rows go in key order (ids still follow input order): concurrent stores then take the unique index's
  // entries in one order, which keeps them from deadlocking each other.
  const order = candidates.map((i, n) => [i, n] as const);
  order.sort(([a], [b]) => compareKeys(records[a] as PreparedRecord, records[b] as PreparedRecord));
  // The rows were serialized as COPY text when prepared; only the id, the timestamps and the sender go in here.
  const at = ctx.now.toISOString();
  const created = await insertRows(
    client,
    copyRows(order, records, heads, `${at}\t${at}\t${at}\t${ingestedBy(ctx)}`),
    order.length,
    ctx.copyHint ?? { storedKeys: false },
  );
  const audits: AuditInput[] = [];
  const attempts: Attempt[] = [];
  const fresh: { id: string; record: PreparedRecord }[] = [];
  const repeats: number[] = [];
  // Rows whose key turns out archived stay until recordRepeats decides (archived-keys.ts): they hold the arriving
  // body a replayed record comes back with. A key not inserted has its body in the staging table (insertRows).
  const held = await archivedArrivals(client, insertedKeys(candidates, records, ids.rows, created));
  const bodies = new Map<string, HeldBody>();
  candidates.forEach((i, n) => {
    const id = ids.rows[n]?.id as string;
    const isCreated = created === "all" || created.has(id);
    const k = keyOf(records[i] as PreparedRecord);
    if (k !== null && (held.has(id) || !isCreated)) bodies.set(k, { id, staged: !isCreated });
    if (isCreated && !held.has(id)) {
      const r = records[i] as PreparedRecord;
      outcomes[i] = { status: "created", id, recordId: id };
      attempts.push({ id, attempt: 1, reason: r.failureReason, at: r.firstSeenAt });
      fresh.push({ id, record: r });
    } else repeats.push(i);
  });
  // The rules' decisions on the records created go into the batch's one ingest event; a record ingest gathered
  // nothing for is decided here (lib/dead-letters/store/rule-decisions.ts).
  const ruled = await decideArrivals(client, fresh, ctx.now, verdicts);
  // The batch's one ingest event comes first in the chain, then one event per record that failed again.
  if (fresh.length) audits.push(ingestAudit(ctx, fresh, ruled));
  const isCandidate = new Set(candidates);
  records.forEach((_, i) => {
    if (!isCandidate.has(i)) repeats.push(i); // a key seen earlier in this batch
  });
  const repeatGroups: { source: string; reasonGroup: string }[] = [];
  if (repeats.length) {
    repeats.sort((a, b) => a - b);
    repeatGroups.push(...(await recordRepeats(client, records, repeats, { held: [...held], bodies }, outcomes, attempts, audits, ctx)));
  }
  const audit = prepareAudit(audits, ctx.now); // before waiting: only hashing and the insert run under the chain's lock
  await ctx.after;
  // Every stored failure (new record or repeat) is an arrival in its group; after the previous batch's commit and
  // before the chain's lock, the order of lib/dead-letters/groups/reopen-groups.ts.
  const reopened = await recordGroupArrivals(client, arrivalsOf([...fresh.map((f) => f.record), ...repeatGroups]), ctx);
  const events = await appendAudit(client, audit, ctx.now);
  if (reopened.length) await appendAudit(client, reopened, ctx.now);
  // Each failure points at the audit event that recorded it (the record's timeline reads it from there), so the
  // attempts go in once the events have their ids: a new record's first attempt is the batch's ingest event
  // (the first one), a repeat (attempt 2 and later, also of a record created in this batch) its record's
  // failure_recorded event.
  const ingestEvent = fresh.length ? events[0] : undefined;
  const repeatEvent = new Map(audits.flatMap((a, i) => (a.targetId ? [[a.targetId, events[i]] as const] : [])));
  const eventOf = (a: Attempt) => (a.attempt === 1 ? ingestEvent : repeatEvent.get(a.id)) ?? null;
  if (attempts.length) {
    const origin = copyField(ctx.origin);
    const text = attempts
      .map(
        (a) =>
          `${a.id}\t${a.attempt}\t${a.at.toISOString()}\t${copyField(a.reason)}\t${origin}\t${eventOf(a) ?? "\\N"}\t` +
          `${copyField(a.batchId ?? null)}\t${copyField(a.alsoSentBy ?? null)}\n`,
      )
      .join("");
    await copyIn(
      client,
      "COPY failure_attempt (dead_letter_id, attempt, at, reason, origin, audit_event_id, batch_id, also_sent_by) FROM STDIN",
      text,
    );
  }
  return outcomes as StoreOutcome[];
}

const COLUMNS = `id, ${ARRIVAL_COLUMNS}, ${ROW_COLUMNS.join(", ")}, created_at, updated_at, last_failed_at, ingested_by`;

/** The user who sent the batch (dead_letter.ingested_by) as a COPY field: `\N` for a broker pull or the CLI. */
const ingestedBy = (ctx: StoreContext): string => copyField(senderOf(ctx));

/** Who sends: the user behind the request, null for a broker pull or the CLI (dead_letter.ingested_by). */
const senderOf = (ctx: StoreContext): string | null => (ctx.origin === "pull" ? null : ctx.actor.id);

/** A row this long (bytes or UTF-16 units) goes to the socket as its own piece rather than copied into a shared buffer. */
const OWN_PIECE_FROM = 64 * 1024;

/**
 * The COPY data of the rows in `order` (record index, id index). Rows prepared on a thread arrive as UTF-8 bytes
 * (normalize.ts rowsAsBytes): they are copied, with their id (and its `head`, ASCII fields ending in a tab) in front and `tail` behind (the fields after the
 * prepared row, the same for every row of the batch: three timestamps, the sender), into one buffer — a memcpy
 * per row, where building one string and encoding it for the socket would hold this thread for every row. A large row
 * (≥ OWN_PIECE_FROM) stays a piece of its own, written as it is; rows normalized on this thread (no pool) are text.
 */
export function copyRows(
  order: readonly (readonly [number, number])[],
  records: readonly Pick<PreparedRecord, "row">[],
  ids: readonly { id: string; head?: string }[],
  tail: string,
): (string | Uint8Array)[] {
  const pieces: (string | Uint8Array)[] = [];
  const end = `\t${tail}\n`;
  const endBytes = Buffer.from(end, "utf8");
  let run: { head: string; row: string | Uint8Array }[] = [];
  const flush = () => {
    if (run.length === 0) return;
    let size = 0;
    for (const r of run) size += r.head.length + byteLength(r.row) + endBytes.length; // ids are ASCII digits
    const buf = Buffer.allocUnsafe(size);
    let at = 0;
    for (const r of run) {
      at += buf.write(r.head, at, "latin1");
      at += typeof r.row === "string" ? buf.write(r.row, at, "utf8") : (buf.set(r.row, at), r.row.length);
      at += endBytes.copy(buf, at);
    }
    pieces.push(buf);
    run = [];
  };
  for (const [i, n] of order) {
    const row = (records[i] as Pick<PreparedRecord, "row">).row;
    const id = ids[n] as { id: string; head?: string };
    const head = `${id.id}\t${id.head ?? ""}`;
    if (row.length < OWN_PIECE_FROM) {
      run.push({ head, row });
      continue;
    }
    flush();
    pieces.push(head, row, end);
  }
  flush();
  return pieces;
}

const byteLength = (row: string | Uint8Array): number => (typeof row === "string" ? Buffer.byteLength(row, "utf8") : row.length);

/**
 * Inserts the rows (COPY text, in the lock order of concurrent stores) and says which were created: "all", or
 * the ids of those whose key was not stored yet. COPY straight into dead_letter is the fast way in (a fifth less
 * PostgreSQL time than INSERT … SELECT from a JSON document) but has no ON CONFLICT: inside a savepoint, a key
 * that is already stored (or is being stored by a concurrent request, which COPY waits for like INSERT does)
 * fails it, and the rows then go through a staging table and `INSERT … ON CONFLICT DO NOTHING` — in the same
 * order as COPY (`ord`, the line number): another order lets a COPY and a staged insert of the same new keys
 * deadlock. A caller that expects stored keys (`hint`) goes to the staging table directly; `hint` learns from
 * each batch whether it met stored keys.
 */
async function insertRows(
  client: pg.PoolClient,
  text: string | (string | Uint8Array)[],
  count: number,
  hint: CopyHint,
): Promise<"all" | Set<string>> {
  if (!hint.storedKeys) {
    await client.query("SAVEPOINT dead_letter_copy");
    try {
      await copyIn(client, `COPY dead_letter (${COLUMNS}) FROM STDIN`, text);
      await client.query("RELEASE SAVEPOINT dead_letter_copy");
      return "all";
    } catch (err) {
      if (!isUniqueViolation(err, "dead_letter_kind_key_key")) throw err;
      await client.query("ROLLBACK TO SAVEPOINT dead_letter_copy");
    }
  }
  // One staging table per connection, emptied by every commit (not created and dropped per batch: a producer
  // re-sending a whole file would churn the catalog).
  // One round trip (no parameters: a simple query may hold two statements); the DELETE only guards a second
  // store in one transaction, the commit empties the table otherwise.
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS dead_letter_stage
    (LIKE dead_letter INCLUDING DEFAULTS, ord bigint GENERATED ALWAYS AS IDENTITY) ON COMMIT DELETE ROWS;
    DELETE FROM dead_letter_stage`);
  await copyIn(client, `COPY dead_letter_stage (${COLUMNS}) FROM STDIN`, text);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO dead_letter (${COLUMNS}) SELECT ${COLUMNS} FROM dead_letter_stage ORDER BY ord
     ON CONFLICT (kind, idempotency_key) DO NOTHING
     RETURNING id::text AS id`,
  );
  hint.storedKeys = inserted.rows.length < count;
  return new Set(inserted.rows.map((r) => r.id));
}

/** The keys of the rows just inserted, with their ids. */
function insertedKeys(
  candidates: number[],
  records: PreparedRecord[],
  ids: { id: string }[],
  created: "all" | Set<string>,
): { id: string; kind: string; key: string }[] {
  const out: { id: string; kind: string; key: string }[] = [];
  candidates.forEach((i, n) => {
    const id = (ids[n] as { id: string }).id;
    const r = records[i] as PreparedRecord;
    if (r.idempotencyKey !== null && (created === "all" || created.has(id))) out.push({ id, kind: r.kind, key: r.idempotencyKey });
  });
  return out;
}

/**
 * Whether a stream's batches meet keys stored before them (a producer sending again what it sent): they then
 * skip the COPY attempt that such a key fails. Shared by a stream's batches; updated by each.
 */
export interface CopyHint {
  storedKeys: boolean;
}

/** A failure to append to failure_attempt. */
interface Attempt {
  id: string;
  attempt: number;
  reason: string;
  at: Date;
  /** the replay batch that had sent the record, for a new failure after replay */
  batchId?: string | null;
  /** another sender's re-send that changed nothing: who sent it */
  alsoSentBy?: string | null;
}

function ingestAudit(ctx: StoreContext, entries: { id: string; record: PreparedRecord }[], ruled: string | null): AuditInput {
  return {
    ...auditActor(ctx.actor, ctx.requestId),
    action: ctx.origin === "capture" ? "dead_letter.captured" : ctx.origin === "pull" ? "dead_letter.pulled" : "dead_letter.ingested",
    targetType: "dead_letter",
    targetId: null,
    after: new CanonicalJson(batchAuditAfter(entries, ruled)),
  };
}

/** The audit verb of a record's repeats in one store, the strongest effect among them deciding. */
const REPEAT_ACTION: Record<KnownKeyEffect, string> = {
  failed_again: "dead_letter.failed_after_replay",
  repeat: "dead_letter.failure_recorded",
  noted: "dead_letter.key_sent_by_other",
};
const STRENGTH: Record<KnownKeyEffect, number> = { noted: 0, repeat: 1, failed_again: 2 };

/**
 * One more failure per repeated record, applied in input order on rows locked in id order (decideKnownKey says
 * what each does). Returns the groups of the records the repeats changed (a repeat brings its reason, hence its
 * reason group; a re-send that changed nothing is no arrival in any group).
 */
async function recordRepeats(
  client: pg.PoolClient,
  records: PreparedRecord[],
  repeats: number[],
  arrived: { held: string[]; bodies: Map<string, HeldBody> },
  outcomes: (StoreOutcome | undefined)[],
  attempts: Attempt[],
  audits: AuditInput[],
  ctx: StoreContext,
): Promise<{ source: string; reasonGroup: string }[]> {
  const kinds = repeats.map((i) => (records[i] as PreparedRecord).kind);
  const keys = repeats.map((i) => (records[i] as PreparedRecord).idempotencyKey);
  const { rows } = await client.query<LockedRow>(
    `SELECT d.id::text AS id, d.source, d.kind, d.idempotency_key, d.failure_count, d.replay_count, d.failure_class,
       d.class_reason, d.status, d.reason, d.ingested_by, d.decided_by_rule_id::text AS rule_id, d.decided_by_rule_version AS rule_version,
       (SELECT count(*)::int FROM failure_attempt f WHERE f.dead_letter_id = d.id AND f.also_sent_by IS NOT NULL) AS noted,
       CASE WHEN d.status = 'replayed' THEN (
         SELECT i.batch_id::text FROM replay_item i
         WHERE i.dead_letter_id = d.id AND i.status IN ('applied', 'deduped')
         ORDER BY i.finished_at DESC NULLS LAST, i.id DESC LIMIT 1) END AS replay_batch,
       CASE WHEN d.status = 'approved' THEN (
         SELECT i.batch_id::text FROM replay_item i WHERE i.dead_letter_id = d.id AND i.status = 'running'
         ORDER BY i.id DESC LIMIT 1) END AS replaying_batch,
       d.payload IS NULL AS stripped
     FROM dead_letter d JOIN unnest($1::"DeadLetterKind"[], $2::text[]) AS k(kind, key)
       ON d.kind = k.kind AND d.idempotency_key = k.key
     WHERE d.id <> ALL($3::bigint[])
     ORDER BY d.id FOR UPDATE OF d`,
    [kinds, keys, arrived.held],
  );
  const byKey = new Map<string, LockedRow & { archived?: ArchivedRow }>(rows.map((r) => [`${r.kind}\u0000${r.idempotency_key}`, r]));
  const archived = await lockArchived(
    client,
    repeats.map((i) => records[i] as PreparedRecord).filter((r) => !byKey.has(keyOf(r) as string)),
  );
  for (const [k, row] of archived) byKey.set(k, { ...row, archived: row });
  const sender = senderOf(ctx);
  const state = new Map<
    string,
    { row: LockedRow; next: RepeatOutcome; before: RepeatState; effect: KnownKeyEffect; noted: number; reason: string }
  >();
  const revivals: { archivedId: string; body: HeldBody | null }[] = [];
  for (const i of repeats) {
    const r = records[i] as PreparedRecord;
    const row = byKey.get(keyOf(r) as string);
    if (!row) throw new Error(`dead letter ${r.kind}/${r.idempotencyKey} vanished while recording a repeat failure`);
    const prev = state.get(row.id);
    const current: RepeatState = prev?.next ?? {
      kind: row.kind,
      failureCount: row.failure_count,
      replayCount: row.replay_count,
      failureClass: row.failure_class,
      classReason: row.class_reason,
      status: row.status,
    };
    const noted = prev?.noted ?? row.noted;
    const ownSender = sender === row.ingested_by;
    const decision = decideKnownKey(
      { ...current, notedFailures: noted, replaying: row.replaying_batch != null },
      { reason: r.failureReason, at: ctx.now, replayCount: r.replayCount, ownSender },
      ctx.maxRetries,
    );
    const { effect, next } = decision;
    // An archived record is decided as a live one; only a failure after its replay brings it back (moveBack below).
    if (row.archived && !prev) {
      if (effect !== "failed_again") {
        outcomes[i] = archivedRepeat(row.archived, r, sender, audits, ctx);
        continue;
      }
      revivals.push({ archivedId: row.id, body: arrived.bodies.get(keyOf(r) as string) ?? null });
      audits.push(movedBackAudit(row.archived, ctx));
    }
    const counts = effect !== "noted";
    state.set(row.id, {
      row,
      next,
      before: prev?.before ?? current,
      effect: prev && STRENGTH[prev.effect] > STRENGTH[effect] ? prev.effect : effect,
      noted: noted + (counts ? 0 : 1),
      reason: counts ? next.reason : (prev?.reason ?? row.reason),
    });
    attempts.push({
      id: row.id,
      attempt: next.failureCount,
      reason: r.failureReason,
      at: ctx.now,
      batchId: effect === "failed_again" ? (row.replay_batch ?? row.replaying_batch ?? null) : null,
      alsoSentBy: counts ? null : (ctx.actor.email ?? ctx.actor.id ?? "an unknown sender"),
    });
    outcomes[i] = ownSender
      ? { status: "duplicate", id: row.id, failureClass: next.failureClass, effect, recordId: row.id }
      : { status: "duplicate", id: null, failureClass: null, effect, recordId: row.id };
  }
  await moveBack(client, revivals, arrived.held, ctx.now);
  const updates = [...state.values()];
  const counted = updates.filter((u) => u.effect !== "noted");
  if (updates.length === 0) return [];
  await client.query(
    `UPDATE dead_letter d SET failure_count = u.failure_count, replay_count = u.replay_count,
       failure_class = u.failure_class, class_reason = u.class_reason, status = u.status, reason = u.reason,
       reason_group = u.reason_group,
       last_failed_at = CASE WHEN u.counts THEN $8 ELSE d.last_failed_at END,
       updated_at = CASE WHEN u.counts THEN $8 ELSE d.updated_at END,
       version = d.version + u.counts::int
     FROM unnest($1::bigint[], $2::int[], $3::int[], $4::"FailureClass"[], $5::text[], $6::"DeadLetterStatus"[],
       $7::text[], $9::text[], $10::bool[]) AS u(id, failure_count, replay_count, failure_class, class_reason, status, reason,
       reason_group, counts)
     WHERE d.id = u.id`,
    [
      updates.map((u) => u.row.id),
      updates.map((u) => u.next.failureCount),
      updates.map((u) => u.next.replayCount),
      updates.map((u) => u.next.failureClass),
      updates.map((u) => u.next.classReason),
      updates.map((u) => u.next.status),
      updates.map((u) => u.reason),
      ctx.now,
      updates.map((u) => reasonGroup(u.reason)),
      updates.map((u) => u.effect !== "noted"),
    ],
  );
  await restoreStripped(client, updates, arrived.bodies);
  // A record a rule decided that fails again after its replay counts toward that rule's re-failure alert
  // (lib/rules/rule-alerts.ts).
  const refailed = new Map<string, { ruleId: string; version: number; failed: number }>();
  for (const u of updates) {
    if (u.effect !== "failed_again" || u.row.rule_id === null || u.row.rule_version === null) continue;
    const key = `${u.row.rule_id}:${u.row.rule_version}`;
    const c = refailed.get(key) ?? { ruleId: u.row.rule_id, version: u.row.rule_version, failed: 0 };
    c.failed++;
    refailed.set(key, c);
  }
  await recordRefailures(client, [...refailed.values()], ctx.now);
  for (const u of updates) {
    const after = {
      failureCount: u.next.failureCount,
      failureClass: u.next.failureClass,
      status: u.next.status,
      reason: u.effect === "noted" ? attemptsReason(attempts, u.row.id) : u.next.reason,
      ...(u.effect === "failed_again" ? { replayBatchId: u.row.replay_batch ?? u.row.replaying_batch ?? null } : {}),
    };
    audits.push({
      ...auditActor(ctx.actor, ctx.requestId),
      action: REPEAT_ACTION[u.effect],
      targetType: "dead_letter",
      targetId: u.row.id,
      before: { failureCount: u.before.failureCount, failureClass: u.before.failureClass, status: u.before.status },
      after,
    });
  }
  return counted.map((u) => ({ source: u.row.source, reasonGroup: reasonGroup(u.reason) }));
}

/**
 * A record back in triage after its replay whose payload retention had stripped takes the arriving one, with its
 * analysis and box: without a payload it could be neither approved nor repaired again. The raw envelope stays as
 * retention left it (the evidence trigger keeps it from being written again), as do the identity and the key. The
 * arriving body is in the staging table (insertRows: its key was stored, so it was not inserted).
 */
async function restoreStripped(
  client: pg.PoolClient,
  updates: { row: LockedRow; effect: KnownKeyEffect }[],
  bodies: Map<string, HeldBody>,
): Promise<void> {
  const pairs = updates.flatMap((u) => {
    if (u.effect !== "failed_again" || !u.row.stripped) return [];
    const body = bodies.get(keyOf({ kind: u.row.kind, idempotencyKey: u.row.idempotency_key }) as string);
    return body?.staged ? [[u.row.id, body.id] as const] : [];
  });
  if (pairs.length === 0) return;
  await client.query(
    `UPDATE dead_letter d SET payload = s.payload, analysis = s.analysis, repaired_geometry = s.repaired_geometry, bbox = s.bbox
     FROM unnest($1::bigint[], $2::bigint[]) AS m(id, body_id) JOIN dead_letter_stage s ON s.id = m.body_id
     WHERE d.id = m.id`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
}

/** The reason of a record's latest attempt in this store. */
function attemptsReason(attempts: Attempt[], id: string): string {
  for (let i = attempts.length - 1; i >= 0; i--) if (attempts[i]?.id === id) return (attempts[i] as Attempt).reason;
  return "";
}
