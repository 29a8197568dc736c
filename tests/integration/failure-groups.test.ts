import { execFile } from "node:child_process";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { failureGroupId } from "../../lib/dead-letters/groups/group-id";
import { countCells, summarizeCells } from "../../lib/ops/overview";
import { unresolvedCount } from "../../lib/ops/measures";
import { ingest } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Failure groups through the API: list and read, acknowledge/assign/note/resolve/ignore with their audit events,
// role checks, field-named 4xx, the regression an ingest into a resolved group causes (audited, one event), and
// ignored groups leaving the overview's attention counts.

setTestAuthEnv();

const groups = await import("../../app/api/groups/route");
const groupById = await import("../../app/api/groups/[id]/route");

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

let db: Db;
let analystToken: string;
let analystId: string;
let analystEmail: string;
let supervisorId: string;
let auditorToken: string;

async function call(
  handler: Handler,
  method: string,
  path: string,
  opts: { token: string; body?: unknown; params?: Record<string, string> },
) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token}` };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(
    new Request(`http://localhost/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const envelope = (key: string, reason: string, source = "gates") =>
  JSON.stringify({
    kind: "afc",
    source,
    raw_payload: { event_id: key, device_id: "g-1", fare_amount_cents: 250, tap_timestamp: "2026-11-05T08:00:00Z" },
    failure_reason: reason,
    retry_count: 0,
  });

const patch = (id: string, body: unknown, token = analystToken) =>
  call(groupById.PATCH, "PATCH", `/groups/${id}`, { token, body, params: { id } });
const get = (id: string) => call(groupById.GET, "GET", `/groups/${id}`, { token: analystToken, params: { id } });
const list = (qs = "") => call(groups.GET, "GET", `/groups${qs}`, { token: analystToken });

async function idOf(reasonStart: string): Promise<string> {
  const r = await list("?sort=size");
  const g = (r.body.groups as { id: string; reasonGroup: string }[]).find((x) => x.reasonGroup.startsWith(reasonStart));
  if (!g) throw new Error(`no group for ${reasonStart}`);
  return g.id;
}

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt", "failure_group", "user"] });
  const analyst = await makeUser(db, "analyst");
  analystId = analyst.id;
  analystEmail = analyst.email;
  analystToken = await makeToken(db, analyst.id);
  supervisorId = (await makeUser(db, "supervisor")).id;
  auditorToken = await makeToken(db, (await makeUser(db, "auditor")).id);
  await ingest(db, [
    envelope("t-1", "downstream timeout after 30 s"),
    envelope("t-2", "downstream timeout after 31 s"),
    envelope("t-3", "downstream timeout after 32 s"),
    envelope("s-1", "schema v3 missing field fare"),
  ]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("failure groups", () => {
  it("lists groups with counts, trend and first/last seen; sorts by size; reads one", async () => {
    const r = await list("?sort=size");
    expect(r.status).toBe(200);
    const [first, second] = r.body.groups;
    expect(first).toMatchObject({ source: "gates", status: "open", count: 3, unresolved: 3, owner: null, regression: false });
    expect(first.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // The store computes ids in JS, reads in SQL: the same id for a reason holding "…" (UTF-8, not ASCII).
    expect(first.reasonGroup).toContain("…");
    expect(failureGroupId(first.source, first.reasonGroup)).toBe(first.id);
    expect(first.trend).toHaveLength(14);
    expect(first.firstSeenAt).not.toBeNull();
    expect(second.count).toBe(1);
    const one = await get(first.id);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: first.id, count: 3, notes: [] });
    expect((await get("AAAAAAAAAAAAAAAA")).status).toBe(404);
    const bad = await get("not an id");
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe("id");
  });

  it("acknowledges, assigns and notes a group, each audited; refuses an auditor and bad input by field", async () => {
    const id = await idOf("downstream timeout");
    const acked = await patch(id, { status: "acknowledged", owner: analystId, note: "on it" });
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ status: "acknowledged", owner: { id: analystId }, notes: [{ body: "on it" }] });
    const { rows } = await db.pool.query<{ action: string; before: unknown; after: { status?: string } }>(
      "SELECT action, before, after FROM audit_event WHERE target_type = 'failure_group' AND target_id = $1 ORDER BY id",
      [id],
    );
    expect(rows.map((r) => r.action)).toEqual(["failure_group.updated", "failure_group.note_added"]);
    expect(rows[0]).toMatchObject({ before: { status: "open", ownerId: null }, after: { status: "acknowledged", ownerId: analystId } });

    expect((await patch(id, { status: "ignored" }, auditorToken)).status).toBe(403);
    const noReason = await patch(id, { status: "resolved" });
    expect(noReason.status).toBe(422);
    expect(noReason.body.error.issues.map((i: { path: string }) => i.path)).toContain("resolution");
    const badLink = await patch(id, { status: "resolved", resolution: { reason: "fixed", link: "javascript:alert(1)" } });
    expect(badLink.body.error.issues.map((i: { path: string }) => i.path)).toContain("resolution.link");
    const nobody = await patch(id, { owner: "no-such-user" });
    expect(nobody.status).toBe(422);
    expect(nobody.body.error.issues[0].path).toBe("owner");
    expect((await patch(id, {})).status).toBe(422);
    const stale = await patch(id, { note: "late", version: 0 });
    expect(stale.status).toBe(409);
  });

  it("a resolved group that receives new records reopens as a regression, audited once per reopening", async () => {
    const id = await idOf("downstream timeout");
    const resolved = await patch(id, {
      status: "resolved",
      resolution: { reason: "fixed upstream in release 4.2", link: "https://example.com/r/4.2" },
    });
    expect(resolved.body).toMatchObject({ status: "resolved", regression: false, resolution: { reason: "fixed upstream in release 4.2" } });

    // Two records of the group in one page, and a repeat of a stored key: one reopening.
    await ingest(db, [envelope("t-4", "downstream timeout after 40 s"), envelope("t-5", "downstream timeout after 41 s")]);
    const after = await get(id);
    expect(after.body).toMatchObject({ status: "open", regression: true, count: 5 });
    expect(after.body.regressedAt).not.toBeNull();
    expect(after.body.resolution.reason).toBe("fixed upstream in release 4.2"); // kept: what was thought fixed
    await ingest(db, [envelope("t-6", "downstream timeout after 42 s")]);
    const { rows } = await db.pool.query<{ action: string; actor_email: string; after: { regression: boolean } }>(
      "SELECT action, actor_email, after FROM audit_event WHERE target_id = $1 AND action = 'failure_group.reopened'",
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.after.regression).toBe(true);

    // Someone looks at it: the mark goes with the next status change.
    const acked = await patch(id, { status: "acknowledged" });
    expect(acked.body).toMatchObject({ status: "acknowledged", regression: false, resolution: null });
    // A repeat failure of a stored record is an arrival too.
    await patch(id, { status: "resolved", resolution: { reason: "again" } });
    await ingest(db, [envelope("t-1", "downstream timeout after 30 s")]);
    expect((await get(id)).body).toMatchObject({ status: "open", regression: true });
  });

  it("an ignored group leaves the overview's attention counts and the dlq_size measure; its records are kept", async () => {
    const id = await idOf("schema v3");
    const before = summarizeCells(await countCells(db.pool, UNSCOPED));
    const unresolvedBefore = await unresolvedCount(db.pool, UNSCOPED);
    expect((await patch(id, { status: "ignored", note: "expected during the migration" })).body.status).toBe("ignored");
    const after = summarizeCells(await countCells(db.pool, UNSCOPED));
    expect(after.total).toBe(before.total);
    expect(after.unresolved).toBe(before.unresolved - 1);
    expect(after.topReasons.some((r) => r.reasonGroup.startsWith("schema v3"))).toBe(false);
    expect(await unresolvedCount(db.pool, UNSCOPED)).toBe(unresolvedBefore - 1);
    // Still listed, with its records.
    expect((await list("?status=ignored")).body.groups).toMatchObject([{ id, count: 1 }]);
    // An ignored group is not reopened by arrivals: only a resolved one is.
    await ingest(db, [envelope("s-2", "schema v3 missing field fare")]);
    expect((await get(id)).body).toMatchObject({ status: "ignored", regression: false, count: 2 });
  });

  it("assigning needs a user who may triage", async () => {
    const id = await idOf("schema v3");
    expect((await patch(id, { owner: supervisorId })).body.owner.id).toBe(supervisorId);
    expect((await patch(id, { owner: null })).body.owner).toBeNull();
  });

  it("the CLI lists groups and resolves one as a named user, audited as them; a missing --as is a usage error", async () => {
    const run = promisify(execFile);
    const cli = async (args: string[]) => {
      try {
        const r = await run(process.execPath, ["bin/redrive.mjs", ...args], {
          env: { ...process.env, DATABASE_URL: db.url },
          timeout: 60_000,
        });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
      }
    };
    const listed = await cli(["group", "list", "--sort", "size", "--json"]);
    expect(listed.code).toBe(0);
    const id = (JSON.parse(listed.stdout) as { id: string; reasonGroup: string }[]).find((g) => g.reasonGroup.startsWith("schema v3"))!.id;
    const table = await cli(["group", "list"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS\s+RECORDS/);
    expect(table.stdout).toContain(id);

    const noActor = await cli(["group", "resolve", id, "--reason", "fixed"]);
    expect(noActor.code).toBe(2);
    expect(noActor.stderr).toContain("--as");
    const badLink = await cli(["group", "resolve", id, "--reason", "fixed", "--link", "ftp://x", "--as", analystEmail]);
    expect(badLink.code).toBe(2);
    expect(badLink.stderr).toContain("--link");
    const resolved = await cli(["group", "resolve", id, "--reason", "producer fixed in 4.3", "--as", analystEmail, "--json"]);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ status: "resolved", resolution: { reason: "producer fixed in 4.3" } });
    const { rows } = await db.pool.query<{ actor_email: string }>(
      "SELECT actor_email FROM audit_event WHERE target_id = $1 AND action = 'failure_group.updated' ORDER BY id DESC LIMIT 1",
      [id],
    );
    expect(rows[0]?.actor_email).toBe(analystEmail);
  }, 300_000); // five CLI processes, each starting the app's modules
});
