import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import type { OwnRecord, OwnRecordsPage } from "../../lib/dead-letters/contract/own-records";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// A producer's view (GET /api/producer/records): the records its own tokens sent, masked, and nobody else's.

setTestAuthEnv();

const ingest = await import("../../app/api/dead-letters/route");
const detail = await import("../../app/api/dead-letters/[id]/route");
const own = await import("../../app/api/producer/records/route");
const ownById = await import("../../app/api/producer/records/[id]/route");

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

let db: Db;

beforeAll(async () => {
  db = await testDb({ truncate: ["user", "dead_letter"] });
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function call(handler: Handler, path: string, token: string, opts: { body?: string; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers["content-type"] = "application/x-ndjson";
  const res = await handler(
    new Request(`http://localhost/api${path}`, { method: opts.body === undefined ? "GET" : "POST", headers, body: opts.body }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];

const envelope = (key: string, reason: string, observedAt = 1_700_000_000) =>
  JSON.stringify({
    kind: "spatial",
    source: "parcels",
    idempotency_key: key,
    observed_at: observedAt,
    feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: square }, properties: {} },
    dead_letter_reason: reason,
  });

async function send(token: string, lines: string[]): Promise<{ index: number; status: string; id?: string }[]> {
  const res = await call(ingest.POST, "/dead-letters", token, { body: lines.join("\n") });
  expect(res.status).toBe(200);
  return (res.body as { results: { index: number; status: string; id?: string }[] }).results;
}

describe("a producer's own records", () => {
  it("lists only what the caller's tokens sent, masked, with counts over all of them and keyset pages", async () => {
    const [a, b, analyst, admin] = await Promise.all([
      makeUser(db, "producer"),
      makeUser(db, "producer"),
      makeUser(db, "analyst"),
      makeUser(db, "admin"),
    ]);
    const [aToken, aToken2, bToken, analystToken, adminToken] = await Promise.all([
      makeToken(db, a.id, "one"),
      makeToken(db, a.id, "two"),
      makeToken(db, b.id),
      makeToken(db, analyst.id),
      makeToken(db, admin.id),
    ]);
    const mine = await send(aToken, [envelope("own-1", "card 4111111111111111 refused", 1_700_000_000), "not json"]);
    expect(mine.map((r) => r.status)).toEqual(["created", "rejected"]);
    const mine2 = await send(aToken2, [envelope("own-2", "HTTP 503", 1_700_000_100)]);
    const theirs = await send(bToken, [envelope("theirs-1", "HTTP 503")]);
    // an admin ingests too (the dashboard's import); the record is the admin's, not a producer's
    expect((await send(adminToken, [envelope("admin-1", "HTTP 503")]))[0]?.status).toBe("created");

    const page = await call(own.GET, "/producer/records", aToken);
    expect(page.status).toBe(200);
    const body = page.body as OwnRecordsPage;
    expect(body.items.map((r) => r.idempotencyKey)).toEqual(["own-2", "own-1"]);
    expect(body.counts.total).toBe(2);
    expect(body.counts.status).toEqual([{ value: "pending", count: 2 }]);
    const first = body.items.find((r) => r.idempotencyKey === "own-1") as OwnRecord;
    expect(first.reason).not.toContain("4111111111111111");
    expect(first.reason).toContain("1111");
    expect(JSON.stringify(body)).not.toContain("4111111111111111");
    expect(first.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const p1 = (await call(own.GET, "/producer/records?limit=1", aToken)).body as OwnRecordsPage;
    expect(p1.items.map((r) => r.id)).toEqual([mine2[0]?.id]);
    const p2 = (await call(own.GET, `/producer/records?limit=1&cursor=${p1.nextCursor}`, aToken)).body as OwnRecordsPage;
    expect(p2.items.map((r) => r.id)).toEqual([mine[0]?.id]);
    expect(p2.nextCursor).toBeNull();

    const ownOne = await call(ownById.GET, `/producer/records/${mine[0]?.id}`, aToken, { params: { id: mine[0]!.id! } });
    expect(ownOne.status).toBe(200);
    expect((ownOne.body as OwnRecord).reason).not.toContain("4111111111111111");
    // someone else's record: 404, as if it did not exist; the full record API stays closed to a producer
    const other = await call(ownById.GET, `/producer/records/${theirs[0]?.id}`, aToken, { params: { id: theirs[0]!.id! } });
    expect(other.status).toBe(404);
    expect((await call(detail.GET, `/dead-letters/${mine[0]?.id}`, aToken, { params: { id: mine[0]!.id! } })).status).toBe(403);
    expect((await call(ingest.GET, "/dead-letters", aToken)).status).toBe(403);

    // readers have the full list; this view is for producers
    expect((await call(own.GET, "/producer/records", analystToken)).status).toBe(403);
    const bad = await call(own.GET, "/producer/records?status=lost", aToken);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("status");
  });

  it("stores the sender on each record; a record sent again keeps its first sender", async () => {
    const [p, q] = await Promise.all([makeUser(db, "producer"), makeUser(db, "producer")]);
    const [pt, qt] = await Promise.all([makeToken(db, p.id), makeToken(db, q.id)]);
    const [created] = await send(pt, [envelope("shared-1", "HTTP 503")]);
    const [again] = await send(qt, [envelope("shared-1", "HTTP 503")]);
    expect(again?.status).toBe("duplicate");
    const { rows } = await db.pool.query<{ ingested_by: string }>("SELECT ingested_by FROM dead_letter WHERE id = $1", [created?.id]);
    expect(rows[0]?.ingested_by).toBe(p.id);
    expect(((await call(own.GET, "/producer/records", qt)).body as OwnRecordsPage).items).toEqual([]);
  });
});
