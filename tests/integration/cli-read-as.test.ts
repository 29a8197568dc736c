import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSTEM_ACTOR } from "../../lib/audit/actor";
import { createTeam } from "../../lib/auth/teams/teams";
import { closeDb, type Db } from "../../lib/db/client";
import { ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { runCli } from "./cli-run";

// The CLI reads company-wide (the operator holds the database) unless --as names a user: then that user's teams
// bound lookup, export and group list as they bound the API (issue 45), as `replay create --as` bounds a batch.

setTestAuthEnv();

let db: Db;
let anaA = "";

const cli = (args: string[]) => runCli(db.url, args);

const tap = (source: string, prefix: string) =>
  JSON.stringify({
    kind: "afc",
    source,
    raw_payload: { event_id: `${prefix}-tap`, device_id: `${prefix}-dev`, fare_amount_cents: 250, tap_timestamp: "2026-12-01T08:00:00Z" },
    failure_reason: "HTTP 503 from fares service",
  });

beforeAll(async () => {
  db = await testDb();
  const ana = await makeUser(db, "analyst");
  anaA = ana.email;
  const ctx = { actor: SYSTEM_ACTOR, requestId: "t", now: new Date() };
  await createTeam(db.pool, { name: "A", members: [{ userId: ana.id }], sources: [{ source: "cli-a-gates" }] }, ctx);
  await createTeam(db.pool, { name: "B", members: [], sources: [{ source: "cli-b-gates" }] }, ctx);
  await ingest(db, [tap("cli-a-gates", "ca"), tap("cli-b-gates", "cb")]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("CLI reads --as a user in teams", () => {
  it("lookup finds another team's record company-wide, and not --as a member of team A", async () => {
    const all = await cli(["lookup", "cb-dev"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("afc");
    const asA = await cli(["lookup", "cb-dev", "--as", anaA]);
    expect([asA.code, asA.stdout]).toEqual([1, ""]); // nothing found: exit 1, as for an unknown key
  });

  it("lookup --as an analyst refuses a card number as the API refuses it them; the operator may search one", async () => {
    const asAnalyst = await cli(["lookup", "4111111111111111", "--as", anaA]);
    expect(asAnalyst.code).not.toBe(0);
    expect(asAnalyst.stderr).toContain("holds a card number");
    const operator = await cli(["lookup", "4111111111111111"]);
    expect([operator.code, operator.stderr]).toEqual([1, expect.not.stringContaining("card number")]); // searched: nothing found
  });

  it("export and group list hold only team A's records --as its member", async () => {
    const exported = await cli(["export", "--format", "ndjson", "--as", anaA]);
    expect(exported.code, exported.stderr).toBe(0);
    const sources = exported.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { source: string }).source);
    expect(sources).toEqual(["cli-a-gates"]);
    const groups = await cli(["group", "list", "--json", "--as", anaA]);
    expect(groups.code, groups.stderr).toBe(0);
    expect((JSON.parse(groups.stdout) as { source: string }[]).map((g) => g.source)).toEqual(["cli-a-gates"]);
  });

  it("replay create --preview --as asks what the /replays/new page asks: an analyst may not preview a batch", async () => {
    const r = await cli(["replay", "create", "--rate", "10", "--preview", "--as", anaA]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toContain("lacks permission replays:manage");
    const operator = await cli(["replay", "create", "--rate", "10", "--preview"]);
    expect(operator.code, operator.stderr).toBe(0);
  });

  it("refuses --as naming no active user, with exit 2", async () => {
    const r = await cli(["group", "list", "--as", "nobody@example.test"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("--as: no active user with e-mail nobody@example.test")]);
  });
});
