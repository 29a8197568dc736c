import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, type Db } from "../../../lib/db/client";
import type { Role } from "../../../lib/auth/permissions";
import { makeToken, makeUser, setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource } from "./origin-flow";

// GET /api/sources/{name}/status is open to every read role, and asking the broker is a login there: read roles
// get the state the pullers recorded (no login at all), an admin's call asks the broker, never while the source
// backs off after failures. Counted by the source's failed attempts: each login the wrong password makes is one.

setTestAuthEnv();

let db: Db;
const tokens = new Map<Role, string>();

beforeAll(async () => {
  db = await testDb();
  process.env.DATABASE_URL = db.url;
  for (const role of ["analyst", "auditor", "supervisor", "admin"] as const) {
    tokens.set(role, await makeToken(getDb(), (await makeUser(getDb(), role)).id));
  }
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function status(role: Role, name: string): Promise<Record<string, unknown>> {
  const { GET } = await import("../../../app/api/sources/[name]/status/route");
  const req = new Request(`http://localhost/api/sources/${name}/status`, { headers: { authorization: `Bearer ${tokens.get(role)}` } });
  const res = await GET(req, { params: Promise.resolve({ name }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const attempts = async (name: string): Promise<number> =>
  (await db.pool.query<{ failures: number }>("SELECT failures FROM source WHERE name = $1", [name])).rows[0]!.failures;

describe("a source's status", () => {
  it("answers read roles from the recorded state without logging in to the broker; an admin's call asks it, outside the backoff", async () => {
    const name = await addSource(db, {
      name: "wrong-password",
      type: "rabbitmq",
      url: "amqp://guest:not-the-password@127.0.0.1:5672",
      kind: "spatial",
      options: { queue: `status-${Date.now()}` },
    });
    // Adding it tried once, and failed: the source now backs off.
    expect(await attempts(name)).toBe(1);
    // Out of the backoff, as time passing would: a read role still does not ask.
    await db.pool.query("UPDATE source SET next_attempt_at = now() - interval '1 second' WHERE name = $1", [name]);

    for (let i = 0; i < 5; i++) {
      for (const role of ["analyst", "auditor", "supervisor"] as const) {
        expect(await status(role, name)).toMatchObject({ name, connected: false, failures: 1, lastError: expect.any(String) });
      }
    }
    expect(await attempts(name)).toBe(1);

    // An admin asks the broker now: one more login, which fails and starts the backoff again…
    expect(await status("admin", name)).toMatchObject({ connected: false, failures: 2 });
    expect(await attempts(name)).toBe(2);
    // …which the next calls honour, the admin's included.
    for (let i = 0; i < 3; i++) expect(await status("admin", name)).toMatchObject({ failures: 2, nextAttemptAt: expect.any(String) });
    expect(await attempts(name)).toBe(2);
  });
});
