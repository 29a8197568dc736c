import { readFileSync } from "node:fs";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { closeDb, type Db } from "../../lib/db/client";
import { inTransaction } from "../../lib/db/transaction";
import { ingestAll, ingest as ingestArrival } from "../../lib/dead-letters/ingest/ingest";
import { normalizeRecord } from "../../lib/dead-letters/ingest/normalize";
import { NormalizePool } from "../../lib/dead-letters/ingest/normalize-pool";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { createRuleJob, runRuleJob } from "../../lib/dead-letters/rules/rule-jobs";
import { arrivalRules } from "../../lib/dead-letters/store/arrival-rules";
import type { PreparedRecord } from "../../lib/dead-letters/store/prepare-row";
import { storeDeadLetters } from "../../lib/dead-letters/store/write-records";
import { pinRepair } from "../../lib/dead-letters/triage/approved-repair";
import { approveRule, createRule, type RuleContext } from "../../lib/rules/rules";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { getGeos } from "../../lib/spatial/geos";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { pentagram } from "../support/rule-shapes";

// A rule judging another repair than the source's decides at arrival: ingest runs that repair (GEOS) on its
// threads before the store transaction and hands the analysis to the store step, which decides from it.

setTestAuthEnv();

const SOURCE = "parcels-structure";
/** A pentagram: the source's repair (linework) drops its centre pentagon (−47% of the area), structure −24%. */
const star = pentagram();

let n = 0;
const envelope = (source = SOURCE) =>
  JSON.stringify({
    kind: "spatial",
    source,
    idempotency_key: `arrival-${++n}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: `f-${n}`, properties: {}, geometry: star },
    dead_letter_reason: "TopologyException: Self-intersection",
  });

let db: Db;
let threads: NormalizePool;
let supervisor: RuleContext;
let approver: RuleContext;

const ctx = (u: { id: string; email: string }): RuleContext => ({
  actor: { id: u.id, email: u.email, role: "supervisor" },
  scope: UNSCOPED,
  role: "supervisor",
  requestId: "t",
  now: new Date(),
  standing: STANDING_REPLAY,
});

async function ingest(texts: string[]): Promise<string[]> {
  async function* records() {
    for (const [index, text] of texts.entries()) yield { index, text };
  }
  const ids: string[] = [];
  const ctx = { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "test", batchSize: 500, threads };
  for await (const results of await ingestArrival({ via: "records", records: records() }, ctx)) {
    for (const r of results) if (r.status === "created") ids.push(r.id);
  }
  return ids;
}

beforeAll(async () => {
  db = await testDb();
  threads = NormalizePool.create(2)!;
  const a = ctx(await makeUser(db, "supervisor", { email: "ann@test.local" }));
  supervisor = a;
  const b = ctx(await makeUser(db, "supervisor", { email: "bob@test.local" }));
  approver = b;
  const rule = await createRule(
    db.pool,
    {
      name: "star-by-structure",
      match: { source: SOURCE, repair: { method: "structure", maxAreaChange: 0.3 } },
      action: { type: "approve" },
    },
    a,
  );
  await approveRule(db.pool, rule.id, 1, b);
});

afterAll(async () => {
  await threads.close();
  await db.pool.end();
  await closeDb();
});

/** A spatial envelope normalized here, prepared for the active rules as an ingest thread prepares it. */
async function prepared(): Promise<PreparedRecord> {
  const n = await normalizeRecord({ index: 0, text: envelope() }, new Date(), { rules: await arrivalRules(db.pool) });
  if (!n.ok) throw new Error(JSON.stringify(n.errors));
  return n.record;
}

async function store(record: PreparedRecord): Promise<string> {
  const [outcome] = await inTransaction(db.pool, (client) =>
    storeDeadLetters(client, [record], { now: new Date(), actor: SYSTEM_ACTOR, requestId: "t", origin: "ingest" }),
  );
  if (outcome?.status !== "created") throw new Error("not created");
  return outcome.id;
}

describe("a rule on another repair method at arrival", () => {
  it("approves a matching arrival in its store transaction, pinned to the rule's repair, run on the ingest threads", async () => {
    const [approved, other] = await ingest([envelope(), envelope("parcels-elsewhere")]);
    const detail = await getDeadLetter(db.pool, approved!);
    expect(detail).toMatchObject({ status: "approved", version: 2, decidedBy: { rule: { name: "star-by-structure", version: 1 } } });
    // Stored with the source's repair (linework, −47%: the rule would skip it), approved with the rule's.
    expect(detail.analysis).toMatchObject({ method: "linework", policy: "accept" });
    const pin = pinRepair(await getGeos(), detail.payload, { method: "structure", policy: "accept" });
    expect(pin.ok && pin.pin).toEqual(detail.approvedRepair);
    expect(detail.approvedRepair).toMatchObject({ method: "structure", outcome: "repaired" });
    expect(await getDeadLetter(db.pool, other!)).toMatchObject({ status: "pending", decidedBy: null });
    const stat = await db.pool.query<{ decided: number }>("SELECT sum(decided)::int AS decided FROM rule_match_stat");
    expect(stat.rows[0]!.decided).toBe(1);
  });

  it("the store decides from the analysis it is handed: it runs no GEOS of its own", async () => {
    const record = await prepared();
    const repairs = record.facts?.repairs;
    expect(repairs).toHaveLength(1);
    expect(repairs![0]).toMatchObject({ method: "structure", policy: "accept", outcome: "repaired" });
    // An analysis GEOS never gives for this star (no area change) and a digest of nothing it delivers: the store
    // approves with exactly these, so they are what it decided from.
    const digest = "f".repeat(64);
    repairs![0] = { ...repairs![0]!, analysis: { ...repairs![0]!.analysis, area_after: repairs![0]!.analysis.area_before }, digest };
    const handed = await getDeadLetter(db.pool, await store(record));
    expect(handed).toMatchObject({ status: "approved", approvedRepair: { method: "structure", digest } });

    // Without the other repair's analysis, the store leaves the arrival pending (to a later apply): it never
    // computes one inside its transaction.
    const bare = await prepared();
    delete bare.facts!.repairs;
    expect(await getDeadLetter(db.pool, await store(bare))).toMatchObject({ status: "pending", decidedBy: null });
  });

  it("a dry run judges stored records by the rule's repair the same way, on the ingest threads", async () => {
    await ingest([envelope("parcels-dry"), envelope("parcels-dry")]);
    const match = { source: "parcels-dry", repair: { method: "structure" as const, maxAreaChange: 0.3 } };
    const rule = await createRule(db.pool, { name: "dry-structure", match, action: { type: "approve" } }, supervisor);
    const job = await createRuleJob(db.pool, rule.id, { type: "dry_run", match, action: { type: "approve" }, version: 1 }, supervisor);
    const done = await runRuleJob(db.pool, rule.id, job.id, { now: () => new Date() });
    // −24% under structure (−47% under the stored linework repair, which the rule does not judge by).
    expect(done).toMatchObject({ status: "completed", decided: 2, skipped: 0, areaChanges: { "0.25": 2 } });
  });

  it("a captured tap is decided from the issues the gate found on its thread", async () => {
    const rule = await createRule(
      db.pool,
      {
        name: "text-fares",
        match: { kind: "afc", afcIssues: ["fare_amount_cents"] },
        action: { type: "quarantine", reason: "fares as text" },
      },
      supervisor,
    );
    await approveRule(db.pool, rule.id, 1, approver);
    const tap = { event_id: "tap-rule-1", device_id: "gate-01", fare_amount_cents: "2.50", tap_timestamp: "2026-11-02T18:10:11.901Z" };
    const [outcome] = await ingestAll(
      { via: "taps", body: Buffer.from(JSON.stringify([tap])), format: "json" },
      { pool: db.pool, actor: SYSTEM_ACTOR, requestId: "t", threads },
    );
    expect(outcome).toMatchObject({ status: "created" });
    const id = (outcome as { id: string }).id;
    expect(await getDeadLetter(db.pool, id)).toMatchObject({ status: "quarantined", decidedBy: { rule: { name: "text-fares" } } });
  });

  it("nothing the store step loads reaches GEOS", () => {
    const seen = new Set<string>();
    const reached: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const [, spec] of text.matchAll(/^(?:import|export)\s(?!type\s)[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gms)) {
        const target = resolve(dirname(file), `${spec}.ts`);
        if (/lib\/spatial\/(geos|analyze)\.ts$/.test(target)) reached.push(`${file} → ${target}`);
        try {
          visit(target);
        } catch {
          // not a .ts module (a .mjs entry): no GEOS behind it
        }
      }
    };
    visit(join(__dirname, "../../lib/dead-letters/store/write-records.ts"));
    expect(seen.size).toBeGreaterThan(10);
    expect(reached).toEqual([]);
  });
});
