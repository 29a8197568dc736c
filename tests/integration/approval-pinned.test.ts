import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { applyAction, type ActionContext } from "../../lib/dead-letters/triage/apply-action";
import { bulkAction, REPAIR_NEEDS_ACK } from "../../lib/dead-letters/triage/bulk-action";
import { geometryDigest } from "../../lib/dead-letters/triage/approved-repair";
import { repairPreview } from "../../lib/dead-letters/triage/repair-preview";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { createBatch, previewBatch } from "../../lib/replay/batch/create-batch";
import { CreateBatchBody, repairConflicts } from "../../lib/replay/batch/batch-schemas";
import { claimItems } from "../../lib/replay/engine/claim-items";
import { decideOrSubmit } from "../../lib/replay/engine/process-page";
import { startWorker, type WorkerHandle } from "../../lib/replay/engine/worker";
import { ledgerSink } from "../../lib/replay/sinks/ledger/ledger-sink";
import { getGeos } from "../../lib/spatial/geos";
import { exportStream } from "../../lib/forensics/export/stream";
import type { JsonValue } from "../../lib/json/value";
import { batchStatus, ingest, runningBatch, spatialEnvelope, type TestUsers, waitFor } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The approval is pinned to what gets replayed: the record page's repair (method, policy, digest) is stored with
// the approval; a batch replays each record with it, applies its own setting only to records approved without
// one (or, confirmed and audited, over them), and sends a record back to review rather than a geometry nobody saw.

setTestAuthEnv();

let db: Db;
let users: TestUsers;
let analyst: ActionContext;
const workers: WorkerHandle[] = [];

/** The demo data's star: a pentagram drawn as one ring through every other tip (lib/seed/generate-spatial.ts). */
function star(x: number, y: number, d = 0.01) {
  const pts = [0, 2, 4, 1, 3, 0].map((k) => {
    const a = Math.PI / 2 + (k * 2 * Math.PI) / 5;
    return [x + d * Math.cos(a), y + d * Math.sin(a)];
  });
  return { type: "Polygon", coordinates: [pts] };
}

let n = 0;
async function ingestStar(): Promise<string> {
  n++;
  const [id] = await ingest(db, [
    spatialEnvelope({ key: `pin-${n}-${Date.now()}`, observedAt: n, featureId: `pin-${n}`, geometry: star(10 + n, 50) }),
  ]);
  return id!;
}

async function version(id: string): Promise<number> {
  return (await getDeadLetter(db.pool, id)).version;
}

beforeAll(async () => {
  db = await testDb();
  const [a, b, c] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor"), await makeUser(db, "analyst")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
  analyst = {
    scope: UNSCOPED,
    actor: { id: c.id, email: c.email, role: "analyst" },
    requestId: "t",
    now: new Date(),
    canOverrideIdentity: false,
  };
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("approving pins the repair", () => {
  it("stores the chosen method, policy and the previewed digest, and audits them", async () => {
    const id = await ingestStar();
    const preview = await repairPreview(db.pool, id, { method: "structure", policy: "accept" });
    expect(preview.sourceDefault).toEqual({ method: "linework", policy: "accept" });
    expect(preview.digest).toBe(geometryDigest(preview.geometry!));
    const detail = await applyAction(
      db.pool,
      id,
      { action: "approve", version: await version(id), repair: { method: "structure", policy: "accept", digest: preview.digest! } },
      analyst,
    );
    expect(detail.approvedRepair).toEqual({ method: "structure", policy: "accept", digest: preview.digest, outcome: "repaired" });
    const audit = await db.pool.query(
      `SELECT after FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 AND action = 'dead_letter.approved'`,
      [id],
    );
    expect(audit.rows[0].after.repair).toMatchObject({ method: "structure", policy: "accept", digest: preview.digest });
  });

  it("without a chosen repair pins the source's default, as the record page previews it", async () => {
    const id = await ingestStar();
    const preview = await repairPreview(db.pool, id, {});
    const detail = await applyAction(db.pool, id, { action: "approve", version: await version(id) }, analyst);
    expect(detail.approvedRepair).toMatchObject({ method: "linework", policy: "accept", digest: preview.digest });
  });

  it("refuses a digest that is not what the repair gives (409) and a repair that delivers nothing (422)", async () => {
    const id = await ingestStar();
    await expect(
      applyAction(
        db.pool,
        id,
        { action: "approve", version: await version(id), repair: { method: "linework", policy: "accept", digest: "0".repeat(64) } },
        analyst,
      ),
    ).rejects.toMatchObject({ code: "conflict" });
    // linework makes the star's tips a MultiPolygon: policy drop drops it.
    await expect(
      applyAction(db.pool, id, { action: "approve", version: await version(id), repair: { method: "linework", policy: "drop" } }, analyst),
    ).rejects.toMatchObject({ code: "validation_failed" });
    expect((await getDeadLetter(db.pool, id)).status).toBe("pending");
  });

  it("a reopen takes the pin away with the approval", async () => {
    const id = await ingestStar();
    await applyAction(db.pool, id, { action: "approve", version: await version(id) }, analyst);
    await applyAction(db.pool, id, { action: "reopen", version: await version(id) }, analyst);
    const { rows } = await db.pool.query(`SELECT approved_repair FROM dead_letter WHERE id = $1`, [id]);
    expect(rows[0].approved_repair).toBeNull();
  });

  it("bulk approval pins each spatial record's default repair; the dry run counts the repairs to acknowledge", async () => {
    const ids = [await ingestStar(), await ingestStar()];
    const ctx = { scope: UNSCOPED, actor: analyst.actor, requestId: "t", now: new Date() };
    const dry = await bulkAction(db.pool, { action: "approve", ids, dryRun: true }, ctx);
    // linework keeps the star's five tips: −47% of its area and a Polygon → MultiPolygon.
    expect(dry.warnings[REPAIR_NEEDS_ACK]).toBe(2);
    const run = await bulkAction(db.pool, { action: "approve", ids }, ctx);
    expect(run.updated).toBe(2);
    expect(run.warnings[REPAIR_NEEDS_ACK]).toBe(2);
    const { rows } = await db.pool.query(`SELECT approved_repair FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids]);
    for (const r of rows) {
      expect(r.approved_repair).toMatchObject({ method: "linework", policy: "accept", outcome: "repaired" });
      expect(r.approved_repair.acknowledged).toHaveLength(2);
    }
  });
});

describe("a batch replays what was approved", () => {
  const body = (ids: string[], repair: Record<string, unknown>) =>
    CreateBatchBody.parse({ ids, sink: { type: "ledger" }, ratePerSecond: 1000, repair });

  it("sends each record repaired as approved, whatever the batch's own setting", async () => {
    const id = await ingestStar();
    const preview = await repairPreview(db.pool, id, { method: "structure", policy: "accept" });
    await applyAction(
      db.pool,
      id,
      { action: "approve", version: await version(id), repair: { method: "structure", policy: "accept" } },
      analyst,
    );
    const batchId = await runningBatch(db, users, {
      ids: [id],
      sink: { type: "ledger" },
      ratePerSecond: 1000,
      repair: { method: "linework", policy: "largest-part" },
    });
    const claimed = await claimItems(db.pool, { batchId, workerId: "t", limit: 10, leaseMs: 5000 });
    const r = decideOrSubmit(claimed[0]!, {
      geos: await getGeos(),
      batch: {
        id: batchId,
        sink: ledgerSink(),
        ratePerSecond: 1000,
        pageSize: 10,
        maxReplays: 3,
        maxAttempts: 5,
        repairMethod: "linework",
        repairPolicy: "largest-part",
        repairOverride: false,
      },
    });
    if (!("payload" in r)) throw new Error(`not submitted: ${JSON.stringify(r)}`);
    expect(geometryDigest((r.payload as { geometry: JsonValue }).geometry)).toBe(preview.digest);
  });

  it("the preview counts approved repairs a batch setting would change; overriding them needs the count confirmed, audited", async () => {
    const ids = [await ingestStar(), await ingestStar()];
    for (const id of ids) await applyAction(db.pool, id, { action: "approve", version: await version(id) }, analyst);
    const preview = await previewBatch(db.pool, { scope: UNSCOPED, ids });
    expect(preview.pinnedRepairs).toEqual([{ method: "linework", policy: "accept", count: 2 }]);
    expect(repairConflicts(preview.pinnedRepairs, { method: "structure", policy: "accept" })).toBe(2);
    expect(repairConflicts(preview.pinnedRepairs, { method: "linework", policy: "accept" })).toBe(0);
    const now = { now: new Date() };
    await expect(
      createBatch(db.pool, body(ids, { method: "structure", policy: "accept", override: true }), users.creator, now),
    ).rejects.toMatchObject({
      code: "validation_failed",
    });
    await expect(
      createBatch(db.pool, body(ids, { method: "structure", policy: "accept", override: true, confirmedConflicts: 1 }), users.creator, now),
    ).rejects.toMatchObject({ code: "conflict" });
    const created = await createBatch(
      db.pool,
      body(ids, { method: "structure", policy: "accept", override: true, confirmedConflicts: 2 }),
      users.creator,
      now,
    );
    const batch = await db.pool.query(`SELECT repair_override FROM replay_batch WHERE id = $1`, [created.id]);
    expect(batch.rows[0].repair_override).toBe(true);
    const audit = await db.pool.query(
      `SELECT after FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 AND action = 'replay_batch.create'`,
      [created.id],
    );
    expect(audit.rows[0].after.repair).toEqual({
      method: "structure",
      policy: "accept",
      override: true,
      overriddenApprovals: 2,
      approvedRepairsKept: 0,
    });
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [created.id]);
  });

  it("without override a batch setting leaves approved repairs alone and needs no confirmation", async () => {
    const id = await ingestStar();
    await applyAction(db.pool, id, { action: "approve", version: await version(id) }, analyst);
    const created = await createBatch(db.pool, body([id], { method: "structure", policy: "drop" }), users.creator, { now: new Date() });
    const audit = await db.pool.query(
      `SELECT after FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 AND action = 'replay_batch.create'`,
      [created.id],
    );
    expect(audit.rows[0].after.repair).toMatchObject({ override: false, approvedRepairsKept: 1 });
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [created.id]);
  });

  it("a replay that gives another geometry than the approved one sends the record back to review, unsent", async () => {
    const [ok, changed] = [await ingestStar(), await ingestStar()];
    for (const id of [ok, changed]) await applyAction(db.pool, id, { action: "approve", version: await version(id) }, analyst);
    // What an edit or another GEOS would do to the result: the approved digest no longer matches the repair.
    await db.pool.query(
      `UPDATE dead_letter SET approved_repair = jsonb_set(approved_repair, '{digest}', to_jsonb(repeat('f', 64))) WHERE id = $1`,
      [changed],
    );
    const batchId = await runningBatch(db, users, { ids: [ok, changed], sink: { type: "ledger" }, ratePerSecond: 1000 });
    workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50 }));
    await waitFor("completion", async () => (await batchStatus(db, batchId)) === "completed");
    const items = await db.pool.query(
      `SELECT dead_letter_id::text AS id, status::text, last_error FROM replay_item WHERE batch_id = $1 ORDER BY seq`,
      [batchId],
    );
    expect(items.rows.find((r) => r.id === ok)).toMatchObject({ status: "applied" });
    expect(items.rows.find((r) => r.id === changed)).toMatchObject({ status: "dropped" });
    expect(items.rows.find((r) => r.id === changed).last_error).toMatch(/different geometry than the one approved: review it again/);
    const record = await getDeadLetter(db.pool, changed);
    expect(record.status).toBe("pending");
    expect(record.reason).toMatch(/review it again/);
    const ledger = await db.pool.query(
      `SELECT count(*)::int AS n FROM ledger_entry l JOIN dead_letter d ON d.idempotency_key = l.idempotency_key WHERE d.id = $1`,
      [changed],
    );
    expect(ledger.rows[0].n).toBe(0);
  });
});

async function exported(format: "csv" | "geojson"): Promise<string> {
  const { stream } = exportStream(db.pool, { scope: UNSCOPED, format, filter: { status: ["replayed"] }, mask: null });
  return new Response(stream).text();
}

describe("after the replay, the record keeps what was approved and what was sent", () => {
  it("the API, the CSV and the GeoJSON say the batch, structure / accept, and carry the geometry sent", async () => {
    const id = await ingestStar();
    const preview = await repairPreview(db.pool, id, { method: "structure", policy: "accept" });
    const acknowledged = ["area −30.5%"];
    await applyAction(
      db.pool,
      id,
      {
        action: "approve",
        version: await version(id),
        repair: { method: "structure", policy: "accept", digest: preview.digest!, acknowledged },
      },
      analyst,
    );
    // The batch's own setting differs: the record is sent with its approval's.
    const batchId = await runningBatch(db, users, { ids: [id], sink: { type: "ledger" }, ratePerSecond: 1000 });
    workers.push(startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50 }));
    await waitFor("completion", async () => (await batchStatus(db, batchId)) === "completed");

    const record = await getDeadLetter(db.pool, id);
    expect(record.status).toBe("replayed");
    expect(record.analysis?.method).toBe("linework"); // the source's default analysis is still there…
    expect(record.approvedRepair).toMatchObject({ method: "structure", policy: "accept", digest: preview.digest, acknowledged });
    expect(record.lastReplay).toMatchObject({
      batchId,
      outcome: "applied",
      sink: "ledger",
      repair: { method: "structure", policy: "accept", from: "approval", outcome: "repaired", digest: preview.digest, acknowledged },
      geometryOmitted: false,
    });
    // …but what was sent is the approved geometry, byte for byte.
    expect(geometryDigest(record.lastReplay!.geometry!)).toBe(preview.digest);

    const csv = (await exported("csv")).split("\r\n");
    const header = csv[0]!.split(",");
    const line = csv.find((l) => l.startsWith(`${id},`))!.split(",");
    const cell = (name: string) => line[line.length - (header.length - header.indexOf(name))];
    expect([cell("approved_repair"), cell("replay_batch_id"), cell("replay_repair")]).toEqual([
      "structure/accept",
      batchId,
      "structure/accept",
    ]);

    const geo = JSON.parse(await exported("geojson")) as {
      features: { geometry: JsonValue; properties: { dead_letter_id: string; role: string; replay: unknown; approved_repair: string } }[];
    };
    const mine = geo.features.filter((f) => f.properties.dead_letter_id === id);
    expect(mine.map((f) => f.properties.role)).toEqual(["original", "sent"]);
    expect(geometryDigest(mine[1]!.geometry)).toBe(preview.digest);
    expect(mine[1]!.properties).toMatchObject({
      approved_repair: "structure/accept",
      replay: { batch_id: batchId, repair: "structure/accept", from: "approval" },
    });
  });
});
