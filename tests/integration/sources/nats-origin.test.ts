import { RetentionPolicy } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addDyingConsumer, addStream, consumeBadly, NATS_URL, openAdmin, publishWithHeaders, runNames, type Admin } from "./nats-fixtures";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";

setTestAuthEnv();

let db: Db;
let users: TestUsers;
let admin: Admin;
const names = runNames();

beforeAll(async () => {
  db = await testDb();
  users = await supervisors(db);
  admin = await openAdmin();
});

afterAll(async () => {
  await names.cleanUp(admin);
  await admin.nc.close();
  await db.pool.end();
  await closeDb();
});

async function readStream(stream: string, fromSeq: number): Promise<{ subject: string; body: string; headers: Record<string, string> }[]> {
  const out = [];
  const info = await admin.jsm.streams.info(stream);
  for (let seq = fromSeq; seq <= info.state.last_seq; seq++) {
    const m = await admin.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!m) continue;
    const headers: Record<string, string> = {};
    for (const [k, v] of m.header ?? []) headers[k] = v.join(",");
    out.push({ subject: m.subject, body: m.string(), headers });
  }
  return out;
}

describe("a NATS JetStream source", () => {
  it("captures max_deliveries and terminated advisories from the moment it is added, pulls the messages with their subject, and a replay publishes each back under Nats-Msg-Id (once: the stream's dedup window absorbs a second replay)", async () => {
    const { stream, subject, source } = names.next();
    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await addDyingConsumer(admin, stream, "ingester", 2);
    await addDyingConsumer(admin, stream, "terminator", 5, `${subject}.term`);
    const name = await addSource(db, { name: source, type: "nats", url: NATS_URL, kind: "spatial", options: { stream, ackWaitMs: 2000 } });

    const bodies = [
      spatialEnvelope({ key: "n-late", observedAt: 300, featureId: "f-1" }),
      spatialEnvelope({ key: "n-early", observedAt: 100, featureId: "f-1" }),
    ];
    for (const b of bodies)
      await publishWithHeaders(admin, `${subject}.parcels`, new TextEncoder().encode(b), [
        ["X-Trace", "t-9"],
        ["Tn", "north"],
      ]);
    await publishWithHeaders(
      admin,
      `${subject}.term`,
      new TextEncoder().encode(spatialEnvelope({ key: "n-term", observedAt: 200, featureId: "f-2" })),
      [],
    );
    const dead = async () => ((await admin.jsm.streams.info(`REDRIVE_ADVISORIES_${source}`).catch(() => null))?.state.messages ?? 0) >= 3;
    await Promise.all([
      consumeBadly(admin, stream, "ingester", "never-ack", dead),
      consumeBadly(admin, stream, "terminator", "term", dead),
    ]);

    const counts = await pull(db, name);
    expect(counts.created).toBe(3);
    const records = await pulledRecords(db, name);
    const byKey = new Map(records.map((r) => [r.idempotency_key, r]));
    expect(byKey.get("n-early")?.origin).toMatchObject({
      sourceType: "nats",
      deathReason: "max_deliveries",
      destination: { type: "nats", subject: `${subject}.parcels`, stream },
    });
    expect(byKey.get("n-early")?.origin.headers).toMatchObject({ "X-Trace": "t-9" });
    expect(byKey.get("n-term")?.origin).toMatchObject({ deathReason: "terminated", destination: { subject: `${subject}.term` } });

    const lastSeq = (await admin.jsm.streams.info(stream)).state.last_seq;
    const ids = records.map((r) => r.id);
    expect(await replayToOrigin(db, users, ids)).toEqual({ applied: 3 });
    const back = await readStream(stream, lastSeq + 1);
    const keys = back.map((m) => JSON.parse(m.body).idempotency_key as string);
    expect([...keys].sort()).toEqual(["n-early", "n-late", "n-term"]);
    expect(keys.indexOf("n-early")).toBeLessThan(keys.indexOf("n-late"));
    for (const m of back) {
      const key = JSON.parse(m.body).idempotency_key;
      expect(m.headers["Nats-Msg-Id"]).toBe(key);
      expect(m.headers["Idempotency-Key"]).toBe(key);
    }
    expect(back.find((m) => m.subject === `${subject}.parcels`)?.headers["X-Trace"]).toBe("t-9");
    // In the order they were published (jsonb would have put Tn first), then the replay's own.
    const sent = back.find((m) => m.subject === `${subject}.parcels`)?.headers ?? {};
    expect(Object.keys(sent).filter((k) => !k.startsWith("Nats-"))).toEqual(["X-Trace", "Tn", "Idempotency-Key"]);

    // A second batch of the same records inside the dedup window: JetStream's own gate answers duplicate.
    await db.pool.query("UPDATE dead_letter SET status = 'pending' WHERE id = ANY($1::bigint[])", [ids]);
    expect(await replayToOrigin(db, users, ids)).toEqual({ deduped: 3 });
    expect((await admin.jsm.streams.info(stream)).state.last_seq).toBe(lastSeq + 3);
  });
});
