import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import type { RouteHandler } from "../../lib/api/handler";
import { POST as dryRunPost } from "../../app/api/rules/[id]/dry-run/route";
import { createRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { jobText } from "../../lib/cli/commands/rules";
import { createBatch, previewBatch } from "../../lib/replay/batch/create-batch";
import { notReplayableToOrigin } from "../../lib/replay/sinks/origin/origin-destinations";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";
import { createRule, type RuleContext } from "../../lib/rules/rules";
import type { RuleJobView } from "../../lib/rules/rule-schemas";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { approve, ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { pentagram, SQUARE } from "../support/rule-shapes";

// A rule whose standing replay goes back to origin: its dry run counts, among the approvals, those that cannot go
// back — not pulled from a broker source, or pulled from one whose options.destinations refuse their destination —
// by the same checks a batch back to origin makes (lib/replay/sinks/origin/origin-destinations.ts).

setTestAuthEnv();

const SOURCE = "parcels-origin-dry";
const BROKER = "nats-orders-dry";
const square = SQUARE;
/** A pentagram: linework drops its centre, −47% of the area (the rule skips it). */
const star = pentagram();
let n = 0;
const envelope = (geometry: unknown) =>
  JSON.stringify({
    kind: "spatial",
    source: SOURCE,
    idempotency_key: `origin-dry-${++n}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: `f-${n}`, properties: {}, geometry },
    dead_letter_reason: "TopologyException: Self-intersection",
  });

let db: Db;
let sup: RuleContext;
let user: { id: string; email: string };
let token: string;
/** 2 without a broker source, 2 pulled to an allowed subject, 1 to a forged one; a star pulled (skipped) */
let ids: { none: string[]; allowed: string[]; forged: string[]; star: string };

async function pulled(id: string, subject: string): Promise<void> {
  await db.pool.query(
    `UPDATE dead_letter SET origin_source = $2, origin = jsonb_build_object('sourceType', 'nats', 'destination', $3::jsonb,
       'position', $4::text, 'headers', '{}'::jsonb, 'properties', '{}'::jsonb) WHERE id = $1`,
    [id, BROKER, JSON.stringify({ type: "nats", subject, stream: "ORDERS" }), `p-${id}`],
  );
}

async function call(handler: RouteHandler, id: string, body: unknown): Promise<{ status: number; job: RuleJobView }> {
  const res = await handler(
    new Request(`http://localhost/api/rules/${id}/dry-run`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, job: ((await res.json()) as { job: RuleJobView }).job };
}

beforeAll(async () => {
  db = await testDb();
  const u = await makeUser(db, "supervisor", { email: "origin-dry@test.local" });
  user = u;
  token = await makeToken(db, u.id);
  sup = {
    standing: STANDING_REPLAY,
    actor: { id: u.id, email: u.email, role: "supervisor" },
    scope: UNSCOPED,
    role: "supervisor",
    requestId: "t",
    now: new Date(),
  };
  await db.pool.query(`INSERT INTO source (name, type, url_sealed, kind, options) VALUES ($1, 'nats', 'unused', 'spatial', $2)`, [
    BROKER,
    JSON.stringify({ destinations: ["orders.*"] }),
  ]);
  const stored = await ingest(db, [
    envelope(square),
    envelope(square),
    envelope(square),
    envelope(square),
    envelope(square),
    envelope(star),
  ]);
  ids = { none: stored.slice(0, 2), allowed: stored.slice(2, 4), forged: [stored[4]!], star: stored[5]! };
  for (const id of ids.allowed) await pulled(id, "orders.eu");
  await pulled(ids.forged[0]!, "payments.settle");
  await pulled(ids.star, "orders.eu");
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const WANT = { total: 3, noBrokerSource: 2, refusedDestination: 1 };

describe("a dry run of a rule replaying back to origin", () => {
  let originRule: string;

  it("counts the approvals that cannot go back, in the API's answer and the CLI's words", async () => {
    const rule = await createRule(
      db.pool,
      {
        name: "origin-dry",
        match: { source: SOURCE, repair: { maxAreaChange: 0.01 } },
        action: { type: "approve" },
        replay: { sink: { type: "origin" }, ratePerSecond: 10 },
      },
      sup,
    );
    originRule = rule.id;
    const { status, job } = await call(dryRunPost, rule.id, {});
    expect(status).toBe(200);
    expect(job).toMatchObject({ status: "completed", decided: 5, skipped: 1, notReplayableToOrigin: WANT });
    expect(jobText(job)).toContain(
      "not replayable to origin: 3 of the approvals (2 not pulled from a broker source, 1 to a destination their source does not allow)",
    );
  });

  it("follows the editor's draft sink: another sink (or none) counts nothing, origin on a draft counts", async () => {
    expect((await call(dryRunPost, originRule, { sink: "ledger" })).job.notReplayableToOrigin).toBeNull();
    expect((await call(dryRunPost, originRule, { sink: null })).job.notReplayableToOrigin).toBeNull();
    const ledger = await createRule(
      db.pool,
      {
        name: "ledger-dry",
        match: { source: SOURCE, repair: { maxAreaChange: 0.01 } },
        action: { type: "approve" },
        replay: { sink: { type: "ledger" }, ratePerSecond: 10 },
      },
      sup,
    );
    expect((await call(dryRunPost, ledger.id, {})).job).toMatchObject({ decided: 5, notReplayableToOrigin: null });
    expect((await call(dryRunPost, ledger.id, { sink: "origin" })).job.notReplayableToOrigin).toEqual(WANT);
    // An action other than approve replays nothing.
    const quarantine = await call(dryRunPost, originRule, { action: { type: "quarantine", reason: "x" }, sink: "origin" });
    expect(quarantine.job).toMatchObject({ decided: 5, notReplayableToOrigin: null });
  });

  it("counts the same on the paged walk (a repair other than the stored one runs GEOS)", async () => {
    const match = { source: SOURCE, repair: { method: "linework" as const, policy: "accept" as const, maxAreaChange: 0.01 } };
    const job = await createRuleJob(
      db.pool,
      originRule,
      { type: "dry_run", match, action: { type: "approve" }, version: null, toOrigin: true },
      sup,
    );
    const done = await runRuleJob(db.pool, originRule, job.id, { now: () => new Date(), originCheck: notReplayableToOrigin });
    expect(done).toMatchObject({ status: "completed", decided: 5, notReplayableToOrigin: WANT });
  });

  it("fails a job counting back to origin whose runner was not handed the replay step's check, rather than count none", async () => {
    const match = { source: SOURCE, repair: { maxAreaChange: 0.01 } };
    const job = await createRuleJob(
      db.pool,
      originRule,
      { type: "dry_run", match, action: { type: "approve" }, version: null, toOrigin: true },
      sup,
    );
    const done = await runRuleJob(db.pool, originRule, job.id, { now: () => new Date() });
    expect(done.status).toBe("failed");
  });

  it("is what a batch back to origin of the same records leaves out and refuses", async () => {
    const approved = [...ids.none, ...ids.allowed, ...ids.forged];
    await approve(db, approved);
    const sel = { ids: approved, scope: UNSCOPED };
    const preview = await previewBatch(db.pool, sel, { origin: true });
    expect(preview.skipped.noOrigin).toBe(WANT.noBrokerSource);
    expect(preview.destinations?.filter((d) => !d.allowed).reduce((s, d) => s + d.count, 0)).toBe(WANT.refusedDestination);
    const body = CreateBatchBody.parse({ filter: { source: [SOURCE] }, sink: { type: "origin" }, ratePerSecond: 10 });
    await expect(
      createBatch(db.pool, body, { userId: user.id, email: user.email, role: "supervisor", scope: UNSCOPED }, { now: new Date() }),
    ).rejects.toThrow(/1 record\(s\) cannot go back to origin/);
  });
});
