import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, type Db } from "../../lib/db/client";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

setTestAuthEnv();

let db: Db;
let token: string;

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "failure_attempt"] });
  process.env.DATABASE_URL = db.url;
  token = await makeToken(getDb(), (await makeUser(getDb(), "producer")).id);
});
afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function capture(body: string, query = "", contentType = "application/json"): Promise<Response> {
  const { POST } = await import("../../app/api/afc/taps/route");
  return POST(
    new Request(`http://localhost/api/afc/taps${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body,
    }),
    { params: Promise.resolve({}) },
  );
}

const good = '{"event_id":"ok-1","device_id":"d-1","fare_amount_cents":275,"tap_timestamp":"2026-11-01T08:00:00Z"}';
const extra = '{"event_id":"bad-1","device_id":"d-1","fare_amount_cents":275,"tap_timestamp":"2026-11-01T08:00:00Z","battery_pct":12}';
const noId = '{"device_id":"d-2","fare_amount_cents":"275.0","tap_timestamp":"2026-11-01T08:00:00Z"}';

describe("POST /api/afc/taps", () => {
  it("answers which passed and captures the failing ones with reason, class and hash", async () => {
    const res = await capture(`[${good}, ${extra}, ${noId}]`, "?source=gates.metro");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ passed: 1, captured: 2, duplicates: 0 });
    expect(body.results[0]).toMatchObject({ index: 0, status: "passed" });
    expect(body.results[0].event_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.results[1]).toMatchObject({
      status: "captured",
      reason: "battery_pct: Unrecognized key",
      failure_class: "transient_schema",
    });
    expect(body.results[2]).toMatchObject({ status: "captured", failure_class: "poison" });
    const { rows } = await db.pool.query("SELECT source, status, idempotency_key FROM dead_letter WHERE event_id = 'bad-1'");
    expect(rows[0]).toMatchObject({ source: "gates.metro", status: "pending", idempotency_key: body.results[1].event_hash });
  });

  it("records a repeated capture as one more failure on the same record", async () => {
    const body = await (await capture(`{"source":"gates.metro","taps":[${extra}]}`)).json();
    expect(body.results[0]).toMatchObject({ status: "duplicate" });
    const { rows } = await db.pool.query("SELECT count(*)::int AS n, max(failure_count) AS f FROM dead_letter WHERE event_id = 'bad-1'");
    expect(rows[0]).toEqual({ n: 1, f: 2 });
  });

  it("answers a repeat with the class stored now: the capture that spends the last retry says poison", async () => {
    const tap = extra.replace("bad-1", "bad-retries");
    const classes: string[] = [];
    for (let i = 0; i < 4; i++) classes.push((await (await capture(`[${tap}]`)).json()).results[0].failure_class);
    const { rows } = await db.pool.query("SELECT failure_class, status FROM dead_letter WHERE event_id = 'bad-retries'");
    expect(rows).toEqual([{ failure_class: "poison", status: "quarantined" }]);
    expect(classes.at(-1)).toBe("poison");
    expect(classes[0]).toBe("transient_schema");
  });

  it("reads a bare NaN in a tap as a Python producer wrote it: captured with the fare's reason, not a 400", async () => {
    const res = await capture(`[${good.replace("ok-1", "nan-1").replace("275", "NaN")}]`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.results[0]).toMatchObject({ status: "captured", reason: expect.stringContaining("fare_amount_cents") });
    const { rows } = await db.pool.query("SELECT raw_envelope FROM dead_letter WHERE event_id = 'nan-1'");
    expect(rows[0].raw_envelope).toContain('"fare_amount_cents":NaN');
  });

  it("takes NDJSON (one tap per line) like POST /api/dead-letters does", async () => {
    const nd = `${good.replace("ok-1", "ok-nd")}\n\n${extra.replace("bad-1", "bad-nd")}\r\n`;
    const res = await capture(nd, "?source=gates.nd", "application/x-ndjson");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ passed: 1, captured: 1, duplicates: 0 });
    expect(body.results.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual([
      [0, "passed"],
      [1, "captured"],
    ]);
    const { rows } = await db.pool.query("SELECT source FROM dead_letter WHERE event_id = 'bad-nd'");
    expect(rows).toEqual([{ source: "gates.nd" }]);
  });

  it("reads any other content type as JSON (a bare curl -d sends form-urlencoded)", async () => {
    const res = await capture(good.replace("ok-1", "ok-form"), "", "application/x-www-form-urlencoded");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ passed: 1, captured: 0 });
  });

  it("refuses NDJSON with a bad line with a 400 naming the line, and stores nothing", async () => {
    const before = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n;
    const res = await capture(`${extra.replace("bad-1", "bad-3")}\n{"event_id": \n`, "", "application/x-ndjson");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body.line 2" }] } });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n).toBe(before);
  });

  it("refuses bad JSON with a 400 and stores nothing", async () => {
    const before = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n;
    const res = await capture(`[${extra.replace("bad-1", "bad-2")}, {"event_id": `);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body" }] } });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n).toBe(before);
  });

  it("refuses a wrapper whose taps is not an array with a 422 naming taps, instead of capturing it as a tap", async () => {
    const before = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n;
    for (const taps of ["5", "null", '{"event_id": "e-1"}']) {
      const res = await capture(`{"source": "s", "taps": ${taps}}`);
      expect(res.status, taps).toBe(422);
      expect(await res.json()).toMatchObject({ error: { code: "validation_failed", issues: [{ path: "taps" }] } });
    }
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n).toBe(before);
  });

  it("refuses a wrapper with a key besides source and taps with a 422 naming it, instead of ignoring a misspelt source", async () => {
    const before = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n;
    const res = await capture(`{"sourcee": "gates.metro", "taps": [${extra.replace("bad-1", "bad-typo")}]}`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: { code: "validation_failed", issues: [{ path: "sourcee" }] } });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n).toBe(before);
  });

  it("refuses a tap holding a value PostgreSQL cannot store (NUL, an unpaired surrogate) with a 422 naming it, and stores nothing", async () => {
    const before = (await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n;
    for (const [bad, message] of [
      ["x\\u0000y", "NUL"],
      ["x\\ud800y", "unpaired UTF-16 surrogate"],
    ] as const) {
      const res = await capture(`[${extra.replace("bad-1", "bad-4")}, {"event_id": "e-9", "device_id": "${bad}"}]`);
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({
        error: { code: "validation_failed", issues: [{ path: "taps[1].device_id", message: expect.stringContaining(message) }] },
      });
    }
    const viaSource = await capture(`{"source": "gates\\u0000", "taps": [${extra.replace("bad-1", "bad-5")}]}`);
    expect(viaSource.status).toBe(422);
    expect(await viaSource.json()).toMatchObject({ error: { issues: [{ path: "source" }] } });
    const viaQuery = await capture(`[${extra.replace("bad-1", "bad-6")}]`, "?source=gates%00");
    expect(viaQuery.status).toBe(422);
    // Too long for its index: the whole statement would fail over it.
    const longId = await capture(`[${extra.replace("bad-1", "b".repeat(3000))}]`);
    expect(longId.status).toBe(422);
    expect(await longId.json()).toMatchObject({
      error: { issues: [{ path: "taps[0].event_id", message: expect.stringContaining("is too long") }] },
    });
    // Bytes that are not UTF-8 (Latin-1 "é"): refused, not stored with U+FFFD in their place.
    const { POST } = await import("../../app/api/afc/taps/route");
    const latin1 = await POST(
      new Request("http://localhost/api/afc/taps", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: new Uint8Array([
          ...new TextEncoder().encode(`[${extra.replace("bad-1", "caf")}`.slice(0, -2)),
          0xe9,
          ...new TextEncoder().encode('"}]'),
        ]),
      }),
      { params: Promise.resolve({}) },
    );
    expect(latin1.status).toBe(400);
    expect(await latin1.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "body", message: "not valid UTF-8" }] } });
    const longSource = await capture(`{"source": "${"s".repeat(300)}", "taps": [${extra.replace("bad-1", "bad-7")}]}`);
    expect(longSource.status).toBe(422);
    expect(await longSource.json()).toMatchObject({ error: { issues: [{ path: "source", message: "must be at most 200 characters" }] } });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM dead_letter")).rows[0].n).toBe(before);
  });
});
