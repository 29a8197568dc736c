import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as settingGet, PUT as settingPut } from "../../app/api/settings/replay-approval/route";
import type { RouteHandler } from "../../lib/api/handler";
import { closeDb, type Db } from "../../lib/db/client";
import { startWorker } from "../../lib/replay/engine/worker";
import { act, create, get } from "../replay/action-routes";
import { approve, batchStatus, ingest, spatialEnvelope, waitFor } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Four eyes below the admin's limit: a batch of at most N records may be approved by the supervisor who created
// it, enforced in the approving transaction; the setting's changes and every approval it allows are audited.

setTestAuthEnv();

let db: Db;
let admin: { id: string; email: string; token: string };
let supervisor: { id: string; email: string; token: string };
let other: { token: string };
let ids: string[];

async function account(role: "admin" | "supervisor") {
  const u = await makeUser(db, role);
  return { id: u.id, email: u.email, token: await makeToken(db, u.id) };
}

async function call(handler: RouteHandler, token: string, method: string, body?: unknown) {
  const res = await handler(
    new Request("http://localhost/api/settings/replay-approval", {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const setLimit = (token: string, limit: unknown) => call(settingPut, token, "PUT", { limit });
const draft = async (n: number) => {
  const answer = await create(supervisor.token, { ids: ids.slice(0, n), sink: { type: "ledger" }, ratePerSecond: 100 });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return (answer.body as { id: string }).id;
};

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch", "ledger_entry", "entity_state", "worker", "user", "app_setting"] });
  admin = await account("admin");
  supervisor = await account("supervisor");
  other = await account("supervisor");
  ids = await ingest(
    db,
    Array.from({ length: 3 }, (_, i) => spatialEnvelope({ key: `single-${i}`, observedAt: 100 + i, featureId: `single-${i}` })),
  );
  await approve(db, ids);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("the single-approver limit", () => {
  it("is 0 by default: the creator cannot approve even a batch of one record", async () => {
    expect((await call(settingGet, supervisor.token, "GET")).body).toEqual({ limit: 0, updatedAt: null, updatedBy: null });
    const id = await draft(1);
    const answer = await act(supervisor.token, id, "approve");
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).toContain("four-eyes");
    await act(supervisor.token, id, "cancel");
  });

  it("is changed by admins only (403 for a supervisor), validated, and every change is audited", async () => {
    const refused = await setLimit(supervisor.token, 5);
    expect(refused.status).toBe(403);
    const bad = await setLimit(admin.token, -1);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('"path":"limit"');
    expect((await setLimit(admin.token, 1.5)).status).toBe(422);

    const set = await setLimit(admin.token, 2);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ limit: 2, updatedBy: admin.email });
    const { rows } = await db.pool.query(
      `SELECT actor_email, actor_role, target_type, target_id, before, after FROM audit_event WHERE action = 'setting.changed' ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        actor_email: admin.email,
        actor_role: "admin",
        target_type: "setting",
        target_id: "replay.single_approver_limit",
        before: { value: 0 },
        after: { value: 2 },
      },
    ]);
    // The supervisor's refused attempt changed nothing.
    expect((await call(settingGet, supervisor.token, "GET")).body).toMatchObject({ limit: 2 });
  });

  it("still needs four eyes for a batch of N+1 records", async () => {
    const id = await draft(3);
    const answer = await act(supervisor.token, id, "approve");
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).toContain("at most 2 records; this one has 3");
    expect(await batchStatus(db, id)).toBe("draft");
    // A second supervisor still may.
    expect((await act(other.token, id, "approve")).status).toBe(200);
    await act(supervisor.token, id, "cancel");
  });

  it("lets the creator alone approve a batch of N records, audited as such, and it replays through the engine", async () => {
    const id = await draft(2);
    const approved = await act(supervisor.token, id, "approve");
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: "approved", approvedBy: { id: supervisor.id }, singleApproverLimit: 2 });
    const { rows } = await db.pool.query(
      `SELECT actor_email, after, reason FROM audit_event WHERE action = 'replay_batch.approve' AND target_id = $1`,
      [id],
    );
    expect(rows).toEqual([
      {
        actor_email: supervisor.email,
        after: { status: "approved", singleApprover: true, singleApproverLimit: 2, total: 2 },
        reason: "approved by one supervisor: 2 records, within the admin's limit of 2",
      },
    ]);
    expect((await act(supervisor.token, id, "start")).status).toBe(200);
    const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 20 });
    try {
      await waitFor("completed", async () => (await batchStatus(db, id)) === "completed", 15_000);
    } finally {
      await worker.stop();
    }
    expect((await get(supervisor.token, id)).body).toMatchObject({ counts: { applied: 2 }, singleApproverLimit: 2 });
  });

  it("is checked when approving, not when creating: lowered to 0, a draft of one record needs four eyes again", async () => {
    const fresh = await ingest(db, [spatialEnvelope({ key: "single-late", observedAt: 200, featureId: "single-late" })]);
    await approve(db, fresh);
    const answer = await create(supervisor.token, { ids: fresh, sink: { type: "ledger" }, ratePerSecond: 100 });
    const id = (answer.body as { id: string }).id;
    expect((await setLimit(admin.token, 0)).status).toBe(200);
    expect((await act(supervisor.token, id, "approve")).status).toBe(403);
    const { rows } = await db.pool.query(`SELECT after FROM audit_event WHERE action = 'setting.changed' ORDER BY id`);
    expect(rows.map((r) => r.after)).toEqual([{ value: 2 }, { value: 0 }]);
  });
});
