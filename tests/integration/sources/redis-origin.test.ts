import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../../lib/scope/record-scope";
import { closeDb, type Db } from "../../../lib/db/client";
import { LookupQuerySchema } from "../../../lib/forensics/forensics-schemas";
import { lookup } from "../../../lib/forensics/lookup";
import { EPOCH, spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";
import { connectAdmin, deleteKeys, failDeliveries, runPrefix, type Admin, REDIS_URL } from "./redis-helpers";

setTestAuthEnv();

const BOWTIE = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};

let db: Db;
let users: TestUsers;
let admin: Admin;
const prefix = runPrefix();

beforeAll(async () => {
  db = await testDb();
  users = await supervisors(db);
  admin = await connectAdmin();
});

afterAll(async () => {
  await deleteKeys(admin, prefix);
  await admin.quit();
  await db.pool.end();
  await closeDb();
});

/** Entries a consumer group read and never acknowledged (past maxDeliveries): Redis's own way of dead letters. */
async function deadEntries(stream: string, group: string, bodies: string[], extra: Record<string, string> = {}): Promise<void> {
  await admin.xGroupCreate(stream, group, "$", { MKSTREAM: true });
  for (const body of bodies) await admin.xAdd(stream, "*", { body, ...extra });
  await failDeliveries(admin, stream, group, "app-worker", 2);
}

async function consumeAll(stream: string): Promise<{ id: string; message: Record<string, string> }[]> {
  const entries = await admin.xRange(stream, "-", "+");
  return (entries ?? []).map((e) => ({ id: e.id, message: e.message as Record<string, string> }));
}

describe("a Redis Streams source", () => {
  it("pulls a group's dead entries with their origin, and a replay puts them back on the stream, each key once, in observation order per entity, fields kept", async () => {
    const stream = `${prefix}:parcels`;
    const bodies = [
      spatialEnvelope({ key: "k-late", observedAt: 300, featureId: "parcel-1" }),
      spatialEnvelope({ key: "k-early", observedAt: 100, featureId: "parcel-1" }),
      spatialEnvelope({ key: "k-other", observedAt: 200, featureId: "parcel-2" }),
    ];
    await deadEntries(stream, "workers", bodies, { trace_id: "t-1" });
    const name = await addSource(db, {
      name: `redis-${prefix.slice(-8)}`,
      type: "redis",
      url: REDIS_URL,
      kind: "spatial",
      options: { stream, group: "workers", minIdleMs: 0, maxDeliveries: 2, gatePrefix: `${prefix}:gate:` },
    });

    expect(await pull(db, name)).toEqual({ pulled: 3, created: 3, duplicates: 0, unreadable: 0 });
    const records = await pulledRecords(db, name);
    expect(records.map((r) => r.idempotency_key).sort()).toEqual(["k-early", "k-late", "k-other"]);
    for (const r of records) {
      expect(r.origin).toMatchObject({
        source: name,
        sourceType: "redis",
        deathReason: "max_deliveries",
        destination: { type: "redis", stream, field: "body" },
      });
      expect(r.origin.headers).toMatchObject({ trace_id: "t-1" });
      expect(r.origin_message_id).toMatch(/^\d+-\d+$/);
    }
    // Investigators find a pulled record by the broker's message id and by its stream position.
    const one = records[0]!;
    const found = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: one.origin_message_id }), null);
    expect(found.records.map((r) => [r.id, r.matchedOn])).toEqual([[one.id, ["broker_message_id", "source_message_id"]]]);
    const byPosition = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: `${stream}:${one.origin_message_id}` }), null);
    expect(byPosition.records.map((r) => [r.id, r.matchedOn])).toEqual([[one.id, ["broker_position"]]]);
    // The group's pending list is empty: the dead letters were acknowledged after they were stored.
    expect((await admin.xPending(stream, "workers")).pending).toBe(0);
    expect(await pull(db, name)).toEqual({ pulled: 0, created: 0, duplicates: 0, unreadable: 0 });

    const before = (await consumeAll(stream)).length;
    expect(
      await replayToOrigin(
        db,
        users,
        records.map((r) => r.id),
      ),
    ).toEqual({ applied: 3 });
    const added = (await consumeAll(stream)).slice(before);
    const keys = added.map((e) => JSON.parse(e.message.body!).idempotency_key as string);
    expect(keys.sort()).toEqual(["k-early", "k-late", "k-other"]);
    // parcel-1's older observation went back first.
    const sequence = added.map((e) => JSON.parse(e.message.body!).idempotency_key as string);
    expect(sequence.indexOf("k-early")).toBeLessThan(sequence.indexOf("k-late"));
    for (const e of added) {
      expect(e.message.trace_id).toBe("t-1");
      expect(JSON.parse(e.message.body!).replay_count).toBe(1);
    }
  });

  it("the spatial replay design's scenario: three bowtie envelopes claimed from a group; the gate already holds one → the other two added in observation order with repaired geometry (applied 2, deduped 1)", async () => {
    const stream = `${prefix}:design`;
    const gatePrefix = `${prefix}:design-gate:`;
    const env = (key: string, at: number) =>
      JSON.stringify({
        kind: "spatial",
        source: "parcels",
        idempotency_key: key,
        observed_at: EPOCH + at,
        feature: { type: "Feature", id: "parcel-42", properties: {}, geometry: BOWTIE },
        dead_letter_reason: "invalid geometry: self-intersection",
      });
    await deadEntries(stream, "app", [env("evt-already-applied", 100), env("evt-new-002", 250), env("evt-new-001", 150)]);
    await admin.set(`${gatePrefix}evt-already-applied`, "1");
    const name = await addSource(db, {
      name: `design-${prefix.slice(-8)}`,
      type: "redis",
      url: REDIS_URL,
      kind: "spatial",
      options: { stream, group: "app", minIdleMs: 0, maxDeliveries: 1, gatePrefix },
    });
    expect(await pull(db, name)).toMatchObject({ pulled: 3, created: 3 });
    const ids = (await pulledRecords(db, name)).map((r) => r.id);
    const before = (await consumeAll(stream)).length;

    expect(await replayToOrigin(db, users, ids)).toEqual({ applied: 2, deduped: 1 });
    const added = (await consumeAll(stream)).slice(before).map((e) => JSON.parse(e.message.body!));
    expect(added.map((e) => e.idempotency_key)).toEqual(["evt-new-001", "evt-new-002"]);
    for (const e of added) {
      expect(e.feature.geometry.type).toBe("MultiPolygon");
      expect(e.feature.geometry.coordinates).toHaveLength(2);
    }
  });

  it("keeps an unreadable entry as poison with its raw text and acknowledges it", async () => {
    const stream = `${prefix}:junk`;
    await deadEntries(stream, "g", ["not json at all"]);
    const name = await addSource(db, {
      name: `junk-${prefix.slice(-8)}`,
      type: "redis",
      url: REDIS_URL,
      kind: "spatial",
      options: { stream, group: "g", minIdleMs: 0, maxDeliveries: 1 },
    });
    expect(await pull(db, name)).toEqual({ pulled: 1, created: 1, duplicates: 0, unreadable: 1 });
    const { rows } = await db.pool.query(
      "SELECT status::text, failure_class::text, raw_envelope, reason FROM dead_letter WHERE origin_source = $1",
      [name],
    );
    expect(rows[0]).toMatchObject({ status: "quarantined", failure_class: "poison", raw_envelope: "not json at all" });
    expect(rows[0].reason).toMatch(/unreadable message.*not JSON/);
    expect((await admin.xPending(stream, "g")).pending).toBe(0);
  });
});
