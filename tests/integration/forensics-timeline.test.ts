import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { applyAction } from "../../lib/dead-letters/triage/apply-action";
import { recordTimeline } from "../../lib/forensics/timeline";
import { DEFAULT_MASK_RULES } from "../../lib/masking/rules";
import { startWorker } from "../../lib/replay/engine/worker";
import { approve, batchStatus, ingest, runningBatch, spatialEnvelope, waitFor, type TestUsers } from "../replay/fixtures";
import { applyBatchAction } from "../../lib/replay/batch/apply-batch-action";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A record's whole life through the real modules — capture, a repeat failure, an edit, approval, a replay batch
// through the engine, settlement in the ledger — and its timeline read back from the audit trail.

setTestAuthEnv();

let db: Db;
let users: TestUsers;
let analyst: { id: string; email: string; role: string };

const PAN = "4111111111111111";
const tap = { event_id: "tap-life-1", device_id: "gate-life", fare_amount_cents: 250, tap_timestamp: "2026-11-20T08:15:00.000Z" };
const record = (retry: number) =>
  JSON.stringify({
    kind: "afc",
    source: "life",
    raw_payload: { ...tap, battery_pct: 40 },
    failure_reason: "battery_pct: Unrecognized key",
    retry_count: retry,
  });

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry", "entity_state", "worker", "user"] });
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
  analyst = await makeUser(db, "analyst");
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("timeline after a full life", () => {
  let id: string;

  it("lists every event in order, from capture to settlement", async () => {
    [id] = (await ingest(db, [record(0)])) as [string];
    await ingest(db, [record(1)]); // the producer failed it again: one more failure on the same row
    const now = () => new Date();
    const ctx = (u: { id: string; email: string; role: string }) => ({
      scope: UNSCOPED,
      actor: { id: u.id, email: u.email, role: u.role },
      requestId: "t",
      now: now(),
      canOverrideIdentity: false,
    });
    const v1 = (await db.pool.query<{ version: number }>("SELECT version FROM dead_letter WHERE id = $1", [id])).rows[0]!.version;
    const edited = await applyAction(
      db.pool,
      id,
      { action: "edit", version: v1, payload: tap, reason: "firmware adds battery_pct" },
      ctx(analyst),
    );
    const sup = { id: users.creator.userId, email: users.creator.email, role: "supervisor" };
    await applyAction(db.pool, id, { action: "approve", version: edited.version, reason: "fixed" }, ctx(sup));

    const batchId = await runningBatch(db, users, { ids: [id], sink: { type: "ledger" }, ratePerSecond: 1000 });
    const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50 });
    try {
      await waitFor("batch completed", async () => (await batchStatus(db, batchId)) === "completed");
    } finally {
      await worker.stop();
    }

    const timeline = await recordTimeline(db.pool, UNSCOPED, id, null);
    expect(timeline.status).toBe("replayed");
    const actions = timeline.events.map((e) => e.action);
    expect(actions).toEqual([
      "dead_letter.ingested",
      "dead_letter.failure_recorded",
      "dead_letter.edited",
      "dead_letter.approved",
      "replay_batch.create",
      "replay_batch.approve",
      "replay_batch.start",
      "replay.applied",
      "ledger.settled",
      "replay_batch.completed",
    ]);
    expect(timeline.events.map((e) => e.kind)).toEqual([
      "capture",
      "failure",
      "edit",
      "decision",
      "batch",
      "batch",
      "batch",
      "replay",
      "settlement",
      "batch",
    ]);
    const at = timeline.events.map((e) => Date.parse(e.at));
    expect([...at].sort((a, b) => a - b)).toEqual(at);

    const edit = timeline.events[2]!;
    expect(edit.actor).toEqual({ id: analyst.id, email: analyst.email, role: "analyst" });
    expect(edit.reason).toBe("firmware adds battery_pct");
    expect(edit.diff).toEqual({ battery_pct: [40, 0, 0] });
    expect(edit.summary).toMatch(/^Edited by .* \(analyst\): 1 change: firmware adds battery_pct$/);
    const approve = timeline.events[3]!;
    expect(approve.summary).toBe(`Approved by ${users.creator.email} (supervisor): fixed`);
    expect(timeline.events[5]!.actor.email).toBe(users.approver.email);
    expect(timeline.events[8]!.summary).toBe(`Settled in the ledger by replay batch ${batchId}`);
    expect(timeline.events.every((e) => e.kind === "settlement" || /^[0-9a-f]{64}$/.test(e.hash ?? ""))).toBe(true);
  });

  it("masks card data in the events for readers without unmask", async () => {
    // the edit's diff does not touch card_pan; the capture event does not carry the payload: put a PAN in a reason
    await applyAction(
      db.pool,
      (
        await ingest(db, [
          JSON.stringify({
            kind: "afc",
            source: "life",
            raw_payload: { event_id: "x", device_id: "y", fare_amount_cents: "1" },
            failure_reason: `card ${PAN} refused`,
          }),
        ])
      )[0]!,
      {
        action: "quarantine",
        version: 1,
        reason: `rider read out ${PAN}`,
      },
      { scope: UNSCOPED, actor: SYSTEM_ACTOR, requestId: "t", now: new Date(), canOverrideIdentity: false },
    );
    const { rows } = await db.pool.query<{ id: string }>("SELECT id::text AS id FROM dead_letter WHERE event_id = 'x'");
    const masked = await recordTimeline(db.pool, UNSCOPED, rows[0]!.id, DEFAULT_MASK_RULES);
    const text = JSON.stringify(masked.events);
    expect(text).not.toContain(PAN);
    expect(text).toContain("••••••••••••1111");
    expect(masked.masked).toBe(true);
    const clear = await recordTimeline(db.pool, UNSCOPED, rows[0]!.id, null);
    expect(JSON.stringify(clear.events)).toContain(PAN);
  });

  it("serves the timeline over HTTP, masked unless an auditor asks for unmask (audited)", async () => {
    const { GET } = await import("../../app/api/dead-letters/[id]/timeline/route");
    const call = async (role: "analyst" | "auditor", qs = "") => {
      const token = await makeToken(db, (await makeUser(db, role)).id);
      return GET(new Request(`http://localhost/api/dead-letters/${id}/timeline${qs}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({ id }),
      });
    };
    const analystRes = await call("analyst");
    expect(analystRes.status).toBe(200);
    expect(((await analystRes.json()) as { masked: boolean }).masked).toBe(true);
    expect((await call("analyst", "?unmask=1")).status).toBe(403);
    const auditorRes = await call("auditor", "?unmask=1&download=1");
    expect(auditorRes.status).toBe(200);
    expect(auditorRes.headers.get("content-disposition")).toContain("timeline.json");
    const { rows } = await db.pool.query(
      "SELECT actor_role FROM audit_event WHERE action = 'dead_letter.unmasked_read' AND target_id = $1",
      [id],
    );
    expect(rows).toEqual([{ actor_role: "auditor" }]);
  });
});

describe("a batch cancelled after a record's turn", () => {
  it("does not end the record's timeline with a bare cancel: it says the record was applied before it", async () => {
    const [first, second] = (await ingest(db, [
      spatialEnvelope({ key: "cancel-late-1", observedAt: 1, featureId: "cancel-late-1" }),
      spatialEnvelope({ key: "cancel-late-2", observedAt: 2, featureId: "cancel-late-2" }),
    ])) as [string, string];
    await approve(db, [first, second]);
    // One a second: the first goes at once, the second would wait a second; the cancel comes in between.
    const batchId = await runningBatch(db, users, { ids: [first, second], sink: { type: "ledger" }, ratePerSecond: 1, pageSize: 1 });
    const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 20 });
    try {
      await waitFor(
        "the first record applied",
        async () =>
          (
            await db.pool.query(`SELECT 1 FROM replay_item WHERE batch_id = $1 AND dead_letter_id = $2 AND status = 'applied'`, [
              batchId,
              first,
            ])
          ).rowCount === 1,
      );
      await applyBatchAction(db.pool, batchId, "cancel", users.creator, { now: new Date() });
    } finally {
      await worker.stop();
    }
    const applied = (await recordTimeline(db.pool, UNSCOPED, first, null)).events;
    const last = applied.at(-1)!;
    expect(last.action).toBe("replay_batch.cancel");
    expect(last.summary).toBe(
      `Replay batch ${batchId} cancelled by ${users.creator.email} (supervisor) — after this record was applied in it (the batch was cancelled later; the record stays applied)`,
    );
    // The second record's item was claimed when the cancel came: its worker then ends it cancelled, after the cancel.
    const notSent = (await recordTimeline(db.pool, UNSCOPED, second, null)).events.find((e) => e.action === "replay_batch.cancel")!;
    expect(notSent.summary).toBe(
      `Replay batch ${batchId} cancelled by ${users.creator.email} (supervisor) — this record was not sent in it`,
    );
  });
});
