import { createServer, type Server } from "node:http";
import { UNSCOPED } from "../../lib/scope/record-scope";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The default: without REDRIVE_OUTBOUND_ALLOW_PRIVATE (which vitest.config.ts sets for the other integration
// tests) a sink or webhook may not reach loopback, private or link-local addresses. The environment is read once per
// process (lib/env.ts): cleared before anything reads it, so the modules are imported after.
delete process.env.REDRIVE_OUTBOUND_ALLOW_PRIVATE;
delete process.env.REDRIVE_OUTBOUND_HOSTS;

const { closeDb } = await import("../../lib/db/client");
const { createBatch } = await import("../../lib/replay/batch/create-batch");
const { applyBatchAction } = await import("../../lib/replay/batch/apply-batch-action");
const { CreateBatchBody } = await import("../../lib/replay/batch/batch-schemas");
const { updateAlertRule } = await import("../../lib/ops/alerts/change-alert-rule");
const { deliverFired } = await import("../../lib/ops/alerts/webhook");
const { startWorker } = await import("../../lib/replay/engine/worker");
const { SYSTEM_ACTOR } = await import("../../lib/audit/actor");
const { afcRecord, approve, ingest, waitFor } = await import("../replay/fixtures");
const { makeUser, setTestAuthEnv } = await import("./auth-helpers");
const { testDb } = await import("./helpers");

setTestAuthEnv();

type Db = Awaited<ReturnType<typeof testDb>>;
let db: Db;
let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  db = await testDb({ truncate: ["alert_event"] });
  server = createServer((_req, res) => {
    hits++;
    res.writeHead(404).end("instance metadata: role credentials …");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.pool.end();
  await closeDb();
});

const user = { scope: UNSCOPED, userId: "u", email: "s@x", role: "supervisor" as const };
const ctx = { actor: SYSTEM_ACTOR, scope: UNSCOPED, requestId: "t", now: new Date() };

describe("outbound addresses by default", () => {
  it("refuses a sink or webhook on loopback, link-local or a name resolving there when saved: 422 naming the field and the setting", async () => {
    const pool = {} as never; // never reached: the refusal comes first
    for (const [url, message] of [
      [`${base}/ingest`, "refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1"],
      ["http://169.254.169.254/latest/meta-data", expect.stringMatching(/^refused: 169\.254\.169\.254 is a link-local address/)],
      ["http://[::ffff:127.0.0.1]:9/x", expect.stringMatching(/^refused: ::ffff:7f00:1 is a loopback address .*=127\.0\.0\.1$/)],
      ["http://localhost:9/x", expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/)],
    ] as const) {
      const input = CreateBatchBody.parse({ ids: ["1"], sink: { type: "http", url }, ratePerSecond: 10 });
      await expect(createBatch(pool, input, user, { now: new Date() })).rejects.toMatchObject({
        status: 422,
        issues: [{ path: "sink.url", message }],
      });
    }
    await expect(updateAlertRule(pool, "dlq-size", { webhookUrl: "http://10.0.0.8/hook" }, ctx)).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "webhookUrl", message: expect.stringMatching(/^refused: 10\.0\.0\.8 is a private address \(RFC 1918\)/) }],
    });
    expect(hits).toBe(0);
  });

  it("refuses at connect time a sink saved before (or whose name now resolves there): the item's error says why, nothing is sent", async () => {
    const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
    const ids = await ingest(db, [afcRecord({ eventId: "priv-1", deviceId: "priv-d", at: 1 })]);
    await approve(db, ids);
    const creator = { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role };
    const now = new Date();
    const { id } = await createBatch(
      db.pool,
      CreateBatchBody.parse({ ids, sink: { type: "ledger" }, ratePerSecond: 50, maxAttempts: 1 }),
      creator,
      {
        now,
      },
    );
    // As a batch stored while loopback was allowed, or a name that resolved elsewhere when it was saved.
    await db.pool.query("UPDATE replay_batch SET sink = $2 WHERE id = $1", [
      id,
      JSON.stringify({ type: "http", url: `${base}/ingest`, timeoutMs: 2000, concurrency: 1 }),
    ]);
    await applyBatchAction(db.pool, id, "approve", { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role }, { now });
    await applyBatchAction(db.pool, id, "start", creator, { now });
    const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 20, maxMs: 100 } });
    try {
      const item = await waitFor("the item to end", async () => {
        const { rows } = await db.pool.query<{ status: string; last_error: string | null }>(
          "SELECT status::text AS status, last_error FROM replay_item WHERE batch_id = $1 AND status = 'poison'",
          [id],
        );
        return rows[0];
      });
      expect(item.last_error).toBe(
        "gave up after 1 attempt: refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1",
      );
    } finally {
      await worker.stop();
    }
    expect(hits).toBe(0);
  });

  it("refuses a webhook delivery to loopback; the event's delivery error says why", async () => {
    await db.pool.query("UPDATE alert_rule SET webhook_url = $1 WHERE id = 'dlq-size'", [`${base}/hook`]);
    await db.pool.query("INSERT INTO alert_event (rule_id, fired_at, value, message) VALUES ('dlq-size', now(), 5, 'five')");
    expect(await deliverFired(db.pool, new Date())).toBe(0);
    const { rows } = await db.pool.query<{ delivery_error: string }>("SELECT delivery_error FROM alert_event WHERE rule_id = 'dlq-size'");
    expect(rows[0]?.delivery_error).toBe(
      "refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1",
    );
    expect(hits).toBe(0);
  });
});
