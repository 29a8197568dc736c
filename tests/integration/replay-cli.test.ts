import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { afcRecord, approve, ingest } from "../replay/fixtures";
import { makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { runCli } from "./cli-run";

// The operator's CLI: `redrive ledger import`, `redrive replay create|approve …` acting as a named user
// (--as), with four-eyes enforced and the user recorded as the audit actor.

setTestAuthEnv();

let db: Db;
let dir: string;
let supA: string;
let supB: string;

const cli = (args: string[]) => runCli(db.url, args);

beforeAll(async () => {
  db = await testDb();
  dir = await mkdtemp(join(tmpdir(), "redrive-cli-"));
  supA = (await makeUser(db, "supervisor")).email;
  supB = (await makeUser(db, "supervisor")).email;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await db.pool.end();
  await closeDb();
});

describe("redrive ledger import", () => {
  it("imports valid lines, reports invalid ones by number and exits 1", async () => {
    const file = join(dir, "settled.ndjson");
    const hash = "C0FFEE".repeat(10) + "ABCD";
    const lines = [
      '{"idempotency_key":"cli-settled-1","kind":"afc"}',
      "not json",
      '{"idempotency_key":"cli-settled-2","applied_at":"2026-11-01T00:00:00Z"}',
      `{"event_hash":"${hash}","applied_at":1700000000}`,
      '{"idempotency_key":"cli-settled-\u00ff"}',
      "",
    ].join("\n");
    // Line 5 in Latin-1 (a lone 0xFF byte): not UTF-8, so refused by itself rather than stored with U+FFFD.
    await writeFile(file, Buffer.from(lines, "latin1"));
    const r = await cli(["ledger", "import", file]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ imported: 3, alreadyKnown: 0, invalid: 2 });
    expect(r.stderr).toContain("line 2: not JSON");
    expect(r.stderr).toContain("line 5: not valid UTF-8");
    const { rows } = await db.pool.query(
      `SELECT idempotency_key, origin FROM ledger_entry WHERE idempotency_key LIKE 'cli-settled-%' ORDER BY 1`,
    );
    expect(rows).toEqual([
      { idempotency_key: "cli-settled-1", origin: "import" },
      { idempotency_key: "cli-settled-2", origin: "import" },
    ]);
    const tap = await db.pool.query(`SELECT kind, applied_at FROM ledger_entry WHERE idempotency_key = $1`, [hash.toLowerCase()]);
    expect(tap.rows).toEqual([{ kind: "afc", applied_at: new Date("2023-11-14T22:13:20Z") }]);
  });
});

describe("redrive replay", () => {
  it("creates as --as, refuses self-approval, approves as another supervisor, audited as them", async () => {
    const ids = await ingest(db, [
      afcRecord({ eventId: "cli-1", deviceId: "cli-dev", at: 1 }),
      afcRecord({ eventId: "cli-2", deviceId: "cli-dev", at: 2 }),
    ]);
    await approve(db, ids);
    // Bad options are named by their flag.
    const notNumber = await cli(["replay", "create", "--ids", ids.join(","), "--rate", "abc", "--as", supA]);
    expect(notNumber.code).not.toBe(0);
    expect(notNumber.stderr).toContain('--rate: expected a number, got "abc"');
    const tooFast = await cli(["replay", "create", "--ids", ids.join(","), "--rate", "10", "--page-size", "0", "--as", supA]);
    expect(tooFast.code).not.toBe(0);
    expect(tooFast.stderr).toContain("--page-size: ");
    const created = await cli(["replay", "create", "--ids", ids.join(","), "--rate", "10", "--as", supA]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^\d+$/);
    expect(created.stderr).toMatch(/created draft batch \d+: 2 records; about 1 s at 10\/s/);

    const own = await cli(["replay", "approve", id, "--as", supA]);
    expect(own.code).toBe(1); // a refusal the command ran into, not a usage error
    expect(own.stderr).toContain("four-eyes");
    const early = await cli(["replay", "start", id, "--as", supA]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain("needs approved");

    const ok = await cli(["replay", "approve", id, "--as", supB, "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id, status: "approved", total: 2, approvedBy: { email: supB } });

    const audit = await db.pool.query(
      `SELECT action, actor_email, request_id FROM audit_event WHERE target_type = 'replay_batch' AND target_id = $1 ORDER BY id`,
      [id],
    );
    // --as names whose role acted; the request says it came from the CLI, which account and which machine
    const cliRequest = expect.stringMatching(/^cli:.+@.+$/);
    expect(audit.rows).toEqual([
      { action: "replay_batch.create", actor_email: supA, request_id: cliRequest },
      { action: "replay_batch.approve", actor_email: supB, request_id: cliRequest },
    ]);
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [id]);
  });
});

describe("redrive replay approval-limit", () => {
  it("shows the limit, sets it as an admin (audited), refuses a supervisor (exit 1) and a bad value (exit 2)", async () => {
    const adminEmail = (await makeUser(db, "admin")).email;
    const shown = await cli(["replay", "approval-limit"]);
    expect(shown).toMatchObject({ code: 0, stdout: "0\n" });
    expect(shown.stderr).toContain("every replay batch needs a second approver");
    const refused = await cli(["replay", "approval-limit", "3", "--as", supA]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("lacks permission settings:manage");
    const bad = await cli(["replay", "approval-limit", "two", "--as", adminEmail]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("limit:");
    const set = await cli(["replay", "approval-limit", "3", "--as", adminEmail]);
    expect(set).toMatchObject({ code: 0, stdout: "3\n" });
    expect(set.stderr).toContain(`batches of up to 3 records may be approved by their creator alone (set by ${adminEmail}`);
    const { rows } = await db.pool.query(
      `SELECT actor_email, before, after FROM audit_event WHERE action = 'setting.changed' AND target_id = 'replay.single_approver_limit'`,
    );
    expect(rows).toEqual([{ actor_email: adminEmail, before: { value: 0 }, after: { value: 3 } }]);
  });
});
