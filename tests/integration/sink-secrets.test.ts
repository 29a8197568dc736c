import { createServer, type Server } from "node:http";
import { UNSCOPED } from "../../lib/scope/record-scope";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { quarantineGroups } from "../../lib/dead-letters/query/quarantine-groups";
import { recordTimeline } from "../../lib/forensics/timeline";
import { listAlertRules } from "../../lib/ops/alerts/alert-rules";
import { updateAlertRule } from "../../lib/ops/alerts/change-alert-rule";
import { deliverFired } from "../../lib/ops/alerts/webhook";
import { getBatch, listItems } from "../../lib/replay/batch/read-batches";
import { ItemsQuery } from "../../lib/replay/batch/batch-schemas";
import { startWorker } from "../../lib/replay/engine/worker";
import { afcRecord, approve, ingest, runningBatch, type TestUsers, waitFor } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A sink's and a webhook's credentials (query values, header values) never reach what analysts and auditors read:
// item errors, record reasons and failure history, timelines, quarantine groups, alert delivery errors, the audit
// trail; and they are sealed at rest. The receiver here echoes what it got, as many 404 pages do.

setTestAuthEnv();

const API_KEY = "k3y-s3cr3t-1234";
const TOKEN = "tok-s3cr3t-5678";
const HOOK_KEY = "wh-s3cr3t-9012";

let db: Db;
let users: TestUsers;
let server: Server;
let base: string;

beforeAll(async () => {
  db = await testDb({ truncate: ["alert_event"] });
  const [a, b] = [await makeUser(db, "supervisor"), await makeUser(db, "supervisor")];
  users = {
    creator: { scope: UNSCOPED, userId: a.id, email: a.email, role: a.role },
    approver: { scope: UNSCOPED, userId: b.id, email: b.email, role: b.role },
  };
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(404).end(`Cannot ${req.method} ${req.url} (authorization: ${req.headers.authorization ?? "none"})`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.pool.end();
  await closeDb();
});

const leaks = (text: string) => [API_KEY, TOKEN, HOOK_KEY].filter((s) => text.includes(s));

describe("an HTTP sink's credentials", () => {
  it("stay out of item errors, record reasons, failure history, timelines and quarantine groups, and are sealed at rest", async () => {
    const ids = await ingest(db, [afcRecord({ eventId: "sec-1", deviceId: "sec-d", at: 1 })]);
    await approve(db, ids);
    const id = await runningBatch(db, users, {
      ids,
      sink: { type: "http", url: `${base}/ingest?api_key=${API_KEY}`, headers: { Authorization: `Bearer ${TOKEN}` }, concurrency: 1 },
      ratePerSecond: 50,
      maxAttempts: 1,
    });
    const stored = await db.pool.query<{ sink: string }>("SELECT sink::text AS sink FROM replay_batch WHERE id = $1", [id]);
    expect(leaks(stored.rows[0]!.sink)).toEqual([]);
    const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 20, maxMs: 100 } });
    try {
      await waitFor("the item to be poison", async () => {
        const { rows } = await db.pool.query("SELECT 1 FROM replay_item WHERE batch_id = $1 AND status = 'poison'", [id]);
        return rows.length > 0;
      });
    } finally {
      await worker.stop();
    }
    // The receiver's answer is kept — it says what went wrong — with the credentials it echoed redacted.
    const items = await listItems(db.pool, UNSCOPED, id, ItemsQuery.parse({}));
    expect(items.items[0]?.lastError).toMatch(
      /^gave up after 1 attempt: HTTP 404: Cannot POST \/ingest\?api_key=redacted \(authorization: \[redacted\]\)$/,
    );
    const record = await db.pool.query<{ reason: string; first_failure_reason: string }>(
      "SELECT reason, first_failure_reason FROM dead_letter WHERE id = $1",
      [ids[0]],
    );
    const history = await db.pool.query<{ reason: string }>("SELECT reason FROM failure_attempt WHERE dead_letter_id = $1", [ids[0]]);
    const timeline = await recordTimeline(db.pool, UNSCOPED, ids[0]!, null);
    const groups = await quarantineGroups(db.pool, UNSCOPED, new Date());
    const audit = await db.pool.query<{ body: string }>("SELECT row_to_json(a)::text AS body FROM audit_event a");
    const batch = await getBatch(db.pool, UNSCOPED, id, new Date());
    expect(batch.sink).toMatchObject({ url: `${base}/ingest?api_key=redacted`, headers: ["Authorization"] });
    for (const text of [
      JSON.stringify(items),
      JSON.stringify(record.rows),
      JSON.stringify(history.rows),
      JSON.stringify(timeline),
      JSON.stringify(groups),
      JSON.stringify(batch),
      ...audit.rows.map((r) => r.body),
    ]) {
      expect(leaks(text)).toEqual([]);
    }
    expect(JSON.stringify(history.rows)).toContain("Cannot POST /ingest?api_key=redacted");
  });
});

describe("an alert webhook's URL", () => {
  it("is sealed at rest, kept out of the audit trail and of delivery errors, and shown whole only to those who manage alerts", async () => {
    const url = `${base}/hook?api_key=${HOOK_KEY}`;
    await updateAlertRule(
      db.pool,
      "dlq-size",
      { webhookUrl: url },
      { actor: SYSTEM_ACTOR, scope: UNSCOPED, requestId: "t", now: new Date() },
    );
    const atRest = await db.pool.query<{ webhook_url: string }>("SELECT webhook_url FROM alert_rule WHERE id = 'dlq-size'");
    expect(leaks(atRest.rows[0]!.webhook_url)).toEqual([]);
    expect((await listAlertRules(db.pool, UNSCOPED, "whole")).find((r) => r.id === "dlq-size")?.webhookUrl).toBe(url);
    expect((await listAlertRules(db.pool, UNSCOPED, "origin")).find((r) => r.id === "dlq-size")?.webhookUrl).toBe(`${base}/…`);

    const { GET } = await import("../../app/api/audit/route");
    const token = await makeToken(db, (await makeUser(db, "auditor")).id);
    const res = await GET(
      new Request("http://localhost/api/audit?action=alert_rule.updated", { headers: { authorization: `Bearer ${token}` } }),
      {
        params: Promise.resolve({}),
      },
    );
    const served = await res.text();
    expect(res.status).toBe(200);
    expect(served).toContain("alert_rule.updated");
    expect(served).toContain(`${base}/… (sha256 `); // where it points, and whether it changed
    expect(leaks(served)).toEqual([]);

    // The receiver answers 404 echoing the request: the delivery error every alerts reader sees holds no key.
    await db.pool.query("INSERT INTO alert_event (rule_id, fired_at, value, message) VALUES ('dlq-size', now(), 5, 'five')");
    expect(await deliverFired(db.pool, new Date())).toBe(0);
    const errors = await db.pool.query<{ delivery_error: string }>("SELECT delivery_error FROM alert_event WHERE rule_id = 'dlq-size'");
    expect(errors.rows[0]?.delivery_error).toBe("HTTP 404");
  });

  it("redacts URL credentials in any audit body, whoever wrote it", async () => {
    const { appendAudit } = await import("../../lib/audit/append");
    const { inTransaction } = await import("../../lib/db/transaction");
    await inTransaction(db.pool, (client) =>
      appendAudit(
        client,
        [
          {
            action: "test.configured",
            targetType: "test",
            after: { endpoint: `https://svc:${TOKEN}@sink.example/x?api_key=${API_KEY}&page=2` },
            reason: `moved from https://old.example/?token=${HOOK_KEY}`,
          },
        ],
        new Date(),
      ),
    );
    const { rows } = await db.pool.query<{ after: { endpoint: string }; reason: string }>(
      "SELECT after, reason FROM audit_event WHERE action = 'test.configured'",
    );
    expect(rows[0]).toEqual({
      after: { endpoint: "https://redacted@sink.example/x?api_key=redacted&page=2" },
      reason: "moved from https://old.example/?token=redacted",
    });
  });
});
