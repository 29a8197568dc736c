import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// The answers that once left past defineRoute's masking pass (tests/unit/answers-masked.test.ts names the places
// that still build a Response themselves): a created rule and batch, and the streamed ingest answer.

setTestAuthEnv();

const PAN = "4111111111111111";
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let db: Db;
let supervisor = "";
let producer = "";

async function post(handler: Handler, path: string, token: string, body: unknown, contentType = "application/json") {
  const res = await handler(
    new Request(`http://localhost/api/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  db = await testDb();
  supervisor = await makeToken(db, (await makeUser(db, "supervisor")).id);
  producer = await makeToken(db, (await makeUser(db, "producer")).id);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("answers built by a route's own code are masked", () => {
  it("POST /api/rules: a quarantine reason quoting a card comes back masked", async () => {
    const { POST } = (await import("../../app/api/rules/route")) as { POST: Handler };
    const r = await post(POST, "rules", supervisor, {
      name: "stolen-cards",
      match: { source: "masked-answers" },
      action: { type: "quarantine", reason: `card ${PAN} reported stolen` },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.text).not.toContain(PAN);
    expect(r.text).toMatch(/•{12}1111 reported stolen/);
  });

  it("POST /api/dead-letters: a rejected record's key, streamed back, is masked", async () => {
    const { POST } = (await import("../../app/api/dead-letters/route")) as { POST: Handler };
    const line = JSON.stringify({ kind: "spatial", source: "masked-answers", idempotency_key: `k-${PAN}`, dead_letter_reason: "x" });
    const r = await post(POST, "dead-letters", producer, `${line}\n`, "application/x-ndjson");
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('"status":"rejected"');
    expect(r.text).not.toContain(PAN);
  });
});
