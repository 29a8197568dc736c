import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can, ROLES } from "../../lib/auth/permissions";
import { closeDb, type Db } from "../../lib/db/client";
import { getDeadLetter } from "../../lib/dead-letters/query/detail";
import { ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { runCli } from "./cli-run";

// `redrive rule …`: a firmware's known bad field quarantined by a rule, drafted and approved by two supervisors
// through the CLI (--as), dry-run then applied, with --json answers.

setTestAuthEnv();

let db: Db;
let supA: string;
let supB: string;

const cli = (args: string[]) => runCli(db.url, args);

const tap = (eventId: string, extra: Record<string, unknown>) =>
  JSON.stringify({
    kind: "afc",
    source: "gates-cli",
    raw_payload: { event_id: eventId, device_id: "gate-7", fare_amount_cents: 250, tap_timestamp: "2026-12-01T08:00:00Z", ...extra },
    failure_reason: "schema",
  });

beforeAll(async () => {
  db = await testDb();
  supA = (await makeUser(db, "supervisor")).email;
  supB = (await makeUser(db, "supervisor")).email;
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("redrive rule", () => {
  it("creates, refuses the drafter's approval, approves, dry-runs, applies and disables", async () => {
    const [battery1, battery2, other] = await ingest(db, [
      tap("e-1", { battery_pct: 7 }),
      tap("e-2", { battery_pct: 9 }),
      tap("e-3", { battery_pct: 9, fare_amount_cents: "250" }),
    ]);
    const match = JSON.stringify({ kind: "afc", afcIssues: ["battery_pct"] });
    const created = await cli([
      "rule",
      "create",
      "--name",
      "firmware-battery",
      "--match",
      match,
      "--action",
      "quarantine",
      "--reason",
      "firmware 2.1 battery field",
      "--as",
      supA,
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const rule = JSON.parse(created.stdout) as { id: string; status: string; version: number };
    expect(rule).toMatchObject({ status: "draft", version: 1 });

    const own = await cli(["rule", "approve", rule.id, "1", "--as", supA]);
    expect(own.code).not.toBe(0);
    expect(own.stderr).toMatch(/four-eyes/);
    const approved = await cli(["rule", "approve", rule.id, "1", "--as", supB, "--json"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: "active", activeVersion: 1 });

    const dry = await cli(["rule", "dry-run", rule.id, "--as", supB, "--json"]);
    expect(dry.code, dry.stderr).toBe(0);
    const counts = JSON.parse(dry.stdout) as { decided: number; samples: { decided: string[] } };
    expect(counts).toMatchObject({ type: "dry_run", status: "completed", decided: 2, skipped: 0 });
    expect(counts.samples.decided.sort()).toEqual([battery1, battery2].sort());

    const applied = await cli(["rule", "apply", rule.id, "1", "--as", supB]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/decided 2, skipped 0/);
    expect(await getDeadLetter(db.pool, battery1!)).toMatchObject({
      status: "quarantined",
      decidedBy: { rule: { name: "firmware-battery", version: 1 } },
    });
    expect((await getDeadLetter(db.pool, other!)).status).toBe("pending");

    const listed = await cli(["rule", "list"]);
    expect(listed.stdout).toMatch(/firmware-battery\s+active\s+1\s+1\s+quarantine/);
    const disabled = await cli(["rule", "disable", rule.id, "--as", supA, "--json"]);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ status: "disabled" });
    const shown = await cli(["rule", "show", rule.id]);
    expect(shown.stdout).toMatch(/v1 {2}drafted by .*approved by /);
  }, 240_000); // ten CLI processes, each a few seconds to start on a loaded machine

  it("drafts a standing replay with --replay, shows its sink, rate and flow, and resumes only a paused one", async () => {
    const bad = await cli([
      "rule",
      "create",
      "--name",
      "gates-replay",
      "--match",
      "{}",
      "--action",
      "approve",
      "--replay",
      "{",
      "--as",
      supA,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--replay: not JSON/);
    const replay = JSON.stringify({ sink: "ledger", ratePerSecond: 5, canary: { count: 10, maxFailureRate: 0.2 } });
    const match = JSON.stringify({ kind: "afc", source: "gates-replay" });
    const created = await cli([
      "rule",
      "create",
      "--name",
      "gates-replay",
      "--match",
      match,
      "--action",
      "approve",
      "--replay",
      replay,
      "--as",
      supA,
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const rule = JSON.parse(created.stdout) as { id: string; replay: unknown };
    expect(rule.replay).toMatchObject({ sink: { type: "ledger" }, ratePerSecond: 5, canary: { count: 10, maxFailureRate: 0.2 } });
    expect((await cli(["rule", "approve", rule.id, "1", "--as", supB])).code).toBe(0);
    const shown = await cli(["rule", "show", rule.id]);
    expect(shown.stdout).toMatch(/standing replay \(v1\): built-in ledger at 5\/s, canary: first 10 items, pause above 20% failed/);
    expect(shown.stdout).toMatch(/flow: batch \d+ \(v1\) running, canary watching/);
    const resume = await cli(["rule", "resume", rule.id, "--as", supB]);
    expect(resume.code).not.toBe(0);
    expect(resume.stderr).toMatch(/has no paused standing replay/);
  }, 240_000);

  it("refuses a dry run and an apply to every role without replays:approve, as the API does", async () => {
    const match = JSON.stringify({ kind: "afc", source: "gates-roles" });
    const created = await cli(["rule", "create", "--name", "gates-roles", "--match", match, "--action", "leave", "--as", supA, "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect((await cli(["rule", "approve", id, "1", "--as", supB])).code).toBe(0);
    const jobs = async () =>
      (await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM rule_job WHERE rule_id = $1", [id])).rows[0]!.n;
    const roles = ROLES.filter((r) => !can(r, "replays:approve"));
    expect(roles).toEqual(expect.arrayContaining(["analyst", "auditor", "producer"]));
    for (const role of roles) {
      const email = (await makeUser(db, role)).email;
      for (const args of [
        ["rule", "dry-run", id, "--as", email],
        ["rule", "apply", id, "1", "--as", email],
      ]) {
        const r = await cli(args);
        expect(r.code, `${args.join(" ")}: ${r.stdout}`).not.toBe(0);
        expect(r.stderr, args.join(" ")).toMatch(/lacks permission replays:approve/);
        expect(r.stdout, args.join(" ")).toBe("");
      }
    }
    expect(await jobs()).toBe(0);
  }, 240_000); // a CLI process per role and command
});
