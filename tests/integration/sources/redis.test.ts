import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PulledMessage, SourceConnector } from "../../../lib/sources/connector";
import { createRedisConnector } from "../../../lib/sources/redis/connector";
import { RedisSourceError } from "../../../lib/sources/redis/errors";
import { redisOptionsSchema, type RedisOptions } from "../../../lib/sources/redis/options";
import { spatialEnvelope } from "../../replay/fixtures";
import {
  connectAdmin,
  deleteKeys,
  failDeliveries,
  pendingOf,
  raw,
  REDIS_URL,
  runPrefix,
  sleep,
  startScratchRedis,
  type Admin,
} from "./redis-helpers";

// Against the real Redis 7 at REDIS_URL: entries dead the Redis way (delivered maxDeliveries times, never
// acknowledged), or copied by a producer to a dead-letter stream; what Redrive takes, what it leaves, and what a
// plain consumer of the original stream sees after a publish back.

const prefix = runPrefix();
let admin: Admin;
const open: SourceConnector[] = [];
let n = 0;

function names() {
  const p = `${prefix}:${++n}`;
  return { stream: `${p}:orders`, dlq: `${p}:orders:dlq`, gatePrefix: `${p}:gate:` };
}

async function connector(options: Partial<RedisOptions> & { stream: string; group: string }, url = REDIS_URL): Promise<SourceConnector> {
  const c = await createRedisConnector({ name: "it-redis", url, options: redisOptionsSchema.parse(options) });
  open.push(c);
  return c;
}

const ids = (ms: readonly PulledMessage[]) => ms.map((m) => m.origin.messageId);
const byId = (ms: readonly PulledMessage[], id: string) => {
  const m = ms.find((x) => x.origin.messageId === id);
  if (!m) throw new Error(`no message ${id} among ${ids(ms).join(", ")}`);
  return m;
};
const timeOf = (id: string) => new Date(Number(id.split("-")[0])).toISOString();

beforeAll(async () => {
  admin = await connectAdmin();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await deleteKeys(admin, prefix);
  const left = [];
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*` })) left.push(...keys);
  expect(left).toEqual([]);
  admin.destroy();
});

describe("claim mode: entries delivered maxDeliveries times and never acknowledged", () => {
  const BINARY = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x0a, 0x80]);

  async function deadEntries() {
    const { stream, gatePrefix } = names();
    await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
    const binary = await admin.xAdd(stream, "*", { body: BINARY, trace_id: "t-1", attempt: "1" });
    const json = await admin.xAdd(stream, "*", { body: '{"kind":"spatial"}', content_type: "application/json" });
    const noBody = await admin.xAdd(stream, "*", { payload: "x", kind: "legacy" });
    const deleted = await admin.xAdd(stream, "*", { body: "soon gone" });
    await failDeliveries(admin, stream, "workers", "worker-1", 3);
    const fresh = await admin.xAdd(stream, "*", { body: "still being retried" });
    await failDeliveries(admin, stream, "workers", "worker-1", 1);
    await admin.xDel(stream, deleted);
    await sleep(80);
    return { stream, gatePrefix, binary, json, noBody, deleted, fresh };
  }

  it("takes exactly the dead entries with their origin, and body bytes intact", async () => {
    const e = await deadEntries();
    const c = await connector({ stream: e.stream, group: "workers", minIdleMs: 50, maxDeliveries: 3 });
    await c.provision();
    expect(await c.waiting()).toBe(4);

    const got = await c.take(10, 1000);
    expect(ids(got).sort()).toEqual([e.binary, e.json, e.noBody, e.deleted].sort());
    const bin = byId(got, e.binary);
    expect(bin.body.equals(BINARY)).toBe(true);
    expect(bin.problem).toBeUndefined();
    expect(bin.origin).toEqual({
      sourceType: "redis",
      destination: { type: "redis", stream: e.stream, field: "body" },
      deathReason: "max_deliveries",
      deliveryCount: 3,
      messageId: e.binary,
      position: `${e.stream}:${e.binary}`,
      publishedAt: timeOf(e.binary),
      diedAt: null,
      headers: { trace_id: "t-1", attempt: "1" },
      properties: {},
    });
    expect(byId(got, e.json).body.toString()).toBe('{"kind":"spatial"}');
    expect(byId(got, e.noBody).problem).toBe(`entry ${e.noBody} has no "body" field (its fields: "payload", "kind")`);
    expect(byId(got, e.noBody).origin.headers).toEqual({ payload: "x", kind: "legacy" });
    expect(byId(got, e.deleted).problem).toBe(`entry ${e.deleted} is no longer in stream "${e.stream}" (trimmed or deleted)`);
    expect(byId(got, e.deleted).body.length).toBe(0);

    // Claimed into Redrive's consumer without adding a delivery; the deleted one stays where it was (XCLAIM
    // would drop it); the entry still being retried is not touched.
    const pending = await pendingOf(admin, e.stream, "workers");
    expect(pending.map((p) => [p.id, p.consumer, p.deliveriesCounter])).toEqual(
      [
        [e.binary, "redrive", 3],
        [e.json, "redrive", 3],
        [e.noBody, "redrive", 3],
        [e.deleted, "worker-1", 3],
        [e.fresh, "worker-1", 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]), "en", { numeric: true })),
    );
  });

  it("loses nothing: unacknowledged ones come back to the next connector, acknowledged ones are gone", async () => {
    const e = await deadEntries();
    const options = { stream: e.stream, group: "workers", minIdleMs: 50, maxDeliveries: 3 };
    const first = await connector(options);
    const got = await first.take(10, 1000);
    expect(got).toHaveLength(4);
    // The same connector does not hand out what it already handed out.
    expect(await first.take(10, 200)).toEqual([]);
    await first.ack(got.filter((m) => m.origin.messageId === e.binary || m.origin.messageId === e.json));
    expect(await first.waiting()).toBe(2);
    await first.close();

    const second = await connector(options);
    expect(await second.waiting()).toBe(2);
    const again = await second.take(10, 1000);
    expect(ids(again).sort()).toEqual([e.noBody, e.deleted].sort());
    expect(again.map((m) => m.origin.position).sort()).toEqual(
      got
        .filter((m) => ids(again).includes(m.origin.messageId))
        .map((m) => m.origin.position)
        .sort(),
    );
    expect(byId(again, e.noBody).origin.deliveryCount).toBe(3);
    await second.ack(again);
    expect(await second.waiting()).toBe(0);
    expect((await pendingOf(admin, e.stream, "workers")).map((p) => p.id)).toEqual([e.fresh]);
    // Acknowledging takes nothing from the application's stream.
    expect(await admin.xLen(e.stream)).toBe(4);
  });

  it("takes in batches of max, in id order, without skipping any", async () => {
    const { stream } = names();
    await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
    const added: string[] = [];
    for (let i = 0; i < 25; i++) added.push(await admin.xAdd(stream, "*", { body: `m${i}` }));
    await failDeliveries(admin, stream, "workers", "worker-1", 2);
    await sleep(80);
    const c = await connector({ stream, group: "workers", minIdleMs: 50, maxDeliveries: 2 });
    const seen: string[] = [];
    for (let batch = await c.take(10, 500); batch.length > 0; batch = await c.take(10, 100)) {
      expect(batch.length).toBeLessThanOrEqual(10);
      seen.push(...ids(batch).map(String));
      await c.ack(batch);
    }
    expect(seen).toEqual(added);
  });

  it("returns [] after about waitMs when nothing is dead", async () => {
    const { stream } = names();
    await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
    await admin.xAdd(stream, "*", { body: "x" });
    await failDeliveries(admin, stream, "workers", "worker-1", 1);
    const c = await connector({ stream, group: "workers", minIdleMs: 50, maxDeliveries: 3 });
    const t = Date.now();
    expect(await c.take(10, 600)).toEqual([]);
    const elapsed = Date.now() - t;
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(1500);
  });

  it("provision says which stream or group is missing", async () => {
    const { stream } = names();
    const missing = await connector({ stream, group: "workers" });
    await expect(missing.provision()).rejects.toThrow(`stream "${stream}" does not exist`);
    await admin.xGroupCreate(stream, "others", "$", { MKSTREAM: true });
    await expect(missing.provision()).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining(`has no consumer group "workers"`),
    });
  });

  it("deprovision removes Redrive's consumer only once it holds nothing, and never the stream", async () => {
    const e = await deadEntries();
    const c = await connector({ stream: e.stream, group: "workers", minIdleMs: 50, maxDeliveries: 3 });
    const got = await c.take(10, 1000);
    await expect(c.deprovision()).rejects.toMatchObject({
      code: "pending",
      message: expect.stringContaining('consumer "redrive" still holds 3 unacknowledged'),
    });
    await c.ack(got);
    await c.deprovision();
    expect((await admin.xInfoConsumers(e.stream, "workers")).map((x) => x.name)).toEqual(["worker-1"]);
    expect(await admin.type(e.stream)).toBe("stream");
    await c.deprovision();
  });
});

describe("dlqStream mode: producers copy dead entries to a dead-letter stream", () => {
  async function deadLetterStream() {
    const { stream, dlq, gatePrefix } = names();
    await admin.xAdd(stream, "*", { body: "the application's stream exists" });
    const first = await admin.xAdd(dlq, "*", {
      body: Buffer.from([0, 1, 2, 0xfe]),
      source_stream: `${stream}:parcels`,
      source_id: "1764600000000-3",
      error: "KeyError: 'geometry'",
    });
    const second = await admin.xAdd(dlq, "*", { body: '{"a":1}', error: "timeout" });
    return { stream, dlq, gatePrefix, first, second };
  }

  it("reads the dead-letter stream through Redrive's group, and hands unacknowledged entries out again after close", async () => {
    const d = await deadLetterStream();
    const options = { stream: d.stream, group: "workers", dlqStream: d.dlq, dlqGroup: "redrive" };
    const c = await connector(options);
    await c.provision();
    await c.provision();
    expect(await c.waiting()).toBe(2);
    const got = await c.take(10, 1000);
    expect(ids(got)).toEqual([d.first, d.second]);
    const first = byId(got, d.first);
    expect(first.body.equals(Buffer.from([0, 1, 2, 0xfe]))).toBe(true);
    expect(first.origin).toEqual({
      sourceType: "redis",
      destination: { type: "redis", stream: `${d.stream}:parcels`, field: "body" },
      deathReason: "dead_letter_stream",
      deliveryCount: null,
      messageId: d.first,
      position: `${d.dlq}:${d.first}`,
      publishedAt: "2025-12-01T14:40:00.000Z",
      diedAt: timeOf(d.first),
      headers: { source_stream: `${d.stream}:parcels`, source_id: "1764600000000-3", error: "KeyError: 'geometry'" },
      properties: {},
    });
    expect(byId(got, d.second).origin.destination).toEqual({ type: "redis", stream: d.stream, field: "body" });
    expect(await c.waiting()).toBe(2);
    expect(await c.take(10, 100)).toEqual([]);
    await c.close();

    const next = await connector(options);
    const again = await next.take(10, 1000);
    expect(again.map((m) => m.origin.position)).toEqual(got.map((m) => m.origin.position));
    expect(again.map((m) => m.body.toString("hex"))).toEqual(got.map((m) => m.body.toString("hex")));
    await next.ack(again.slice(0, 1));
    expect(await next.waiting()).toBe(1);
    await next.ack(again.slice(1));
    expect(await next.waiting()).toBe(0);
    expect(await next.take(10, 100)).toEqual([]);
    // Acknowledged, not deleted: the producer's stream keeps its entries for its other readers.
    expect(await admin.xLen(d.dlq)).toBe(2);
  });

  it("waits for new dead letters, and returns [] after about waitMs when none come", async () => {
    const { stream, dlq } = names();
    const c = await connector({ stream, group: "workers", dlqStream: dlq });
    await c.provision();
    let t = Date.now();
    expect(await c.take(10, 500)).toEqual([]);
    const elapsed = Date.now() - t;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1500);

    t = Date.now();
    const waiting = c.take(10, 5000);
    await sleep(100);
    const id = await admin.xAdd(dlq, "*", { body: "late" });
    expect(ids(await waiting)).toEqual([id]);
    expect(Date.now() - t).toBeLessThan(2000);
  });

  it("reports an entry deleted before it was acknowledged", async () => {
    const d = await deadLetterStream();
    const options = { stream: d.stream, group: "workers", dlqStream: d.dlq };
    const c = await connector(options);
    await c.provision();
    await c.take(10, 500);
    await c.close();
    await admin.xDel(d.dlq, d.first);
    const next = await connector(options);
    const again = await next.take(10, 500);
    expect(byId(again, d.first).problem).toBe(`entry ${d.first} is no longer in stream "${d.dlq}" (trimmed or deleted)`);
    await next.ack(again);
    expect(await next.waiting()).toBe(0);
  });

  it("deprovision leaves the stream and the group, and refuses while entries are held", async () => {
    const d = await deadLetterStream();
    const c = await connector({ stream: d.stream, group: "workers", dlqStream: d.dlq });
    await c.provision();
    const got = await c.take(10, 500);
    await expect(c.deprovision()).rejects.toMatchObject({ code: "pending" });
    await c.ack(got);
    await c.deprovision();
    expect((await admin.xInfoGroups(d.dlq)).map((g) => [g.name, g.consumers])).toEqual([["redrive", 0]]);
  });
});

describe("publish back to the original stream", () => {
  async function takenDeadLetter() {
    const { stream, gatePrefix } = names();
    await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
    const body = Buffer.from([0xde, 0xad, 0x00, 0xbe, 0xef, 0xff]);
    await admin.sendCommand(["XADD", stream, "*", "trace_id", "t-9", "body", body, "tag", "a", "tag", "b", "sig", Buffer.from([0x80])]);
    await failDeliveries(admin, stream, "workers", "worker-1", 3);
    await sleep(80);
    const c = await connector({ stream, group: "workers", minIdleMs: 50, maxDeliveries: 3, gatePrefix });
    const [message] = await c.take(1, 1000);
    if (!message) throw new Error("nothing taken");
    // A plain consumer of the destination, reading only what arrives from now on.
    await admin.xGroupCreate(stream, "plain", "$");
    return { stream, gatePrefix, c, message, body };
  }

  it("adds the entry once with the same fields; the same key again is deduplicated", async () => {
    const { stream, gatePrefix, c, message, body } = await takenDeadLetter();
    expect(await c.publish({ key: "evt-1", body: message.body, origin: message.origin })).toEqual({ outcome: "applied" });
    expect(await c.publish({ key: "evt-1", body: message.body, origin: message.origin })).toEqual({ outcome: "deduped" });

    const read = await raw(admin).xReadGroup("plain", "reader", { key: stream, id: ">" }, { COUNT: 10 });
    const entries = read?.[0]?.messages ?? [];
    expect(entries).toHaveLength(1);
    const fields = (entries[0]?.message as Buffer[]).map((f) => f.toString("hex"));
    const expected = ["body", body, "trace_id", "t-9", "tag", "a", "tag", "b", "sig", Buffer.from([0x80])].map((f) =>
      Buffer.from(f).toString("hex"),
    );
    expect(fields).toEqual(expected);
    expect(await admin.get(`${gatePrefix}evt-1`)).toBe("1");
    await c.ack([message]);
  });

  it("spatial: three envelopes, the gate already holds one of them: applied, applied, deduped", async () => {
    const { stream, gatePrefix, c, message } = await takenDeadLetter();
    await admin.set(`${gatePrefix}evt-already-applied`, "1");
    const keys = ["evt-parcel-17", "evt-parcel-18", "evt-already-applied"];
    const results = [];
    for (const [i, key] of keys.entries()) {
      const body = Buffer.from(spatialEnvelope({ key, observedAt: i * 60, featureId: `parcel-${17 + i}` }));
      results.push(await c.publish({ key, body, origin: message.origin }));
    }
    expect(results.map((r) => r.outcome)).toEqual(["applied", "applied", "deduped"]);
    const read = await admin.xReadGroup("plain", "reader", { key: stream, id: ">" }, { COUNT: 10 });
    const bodies = (read?.[0]?.messages ?? []).map(
      (m: { message: Record<string, string> }) => JSON.parse(m.message.body ?? "null").idempotency_key,
    );
    expect(bodies).toEqual(["evt-parcel-17", "evt-parcel-18"]);
  });

  it("fails without setting the gate when the destination is missing or not a stream", async () => {
    const { gatePrefix, c, message } = await takenDeadLetter();
    const gone = { ...message.origin, destination: { type: "redis" as const, stream: `${gatePrefix}missing`, field: "body" } };
    const r = await c.publish({ key: "evt-x", body: message.body, origin: gone });
    expect(r).toEqual({
      outcome: "failed",
      error: `stream "${gatePrefix}missing" does not exist on redis://127.0.0.1:6379/0`,
      retryable: false,
    });
    await admin.set(`${gatePrefix}missing`, "a string");
    expect(await c.publish({ key: "evt-x", body: message.body, origin: gone })).toMatchObject({ outcome: "failed", retryable: false });
    expect(await admin.exists(`${gatePrefix}evt-x`)).toBe(0);
    const elsewhere = { ...message.origin, destination: { type: "nats" as const, subject: "s", stream: "S" } };
    expect(await c.publish({ key: "evt-y", body: message.body, origin: elsewhere })).toMatchObject({ outcome: "failed", retryable: false });
  });

  it("survives SCRIPT FLUSH (EVALSHA falls back to EVAL)", async () => {
    const { c, message } = await takenDeadLetter();
    await admin.scriptFlush();
    expect(await c.publish({ key: "evt-after-flush", body: message.body, origin: message.origin })).toEqual({ outcome: "applied" });
  });
});

describe("failures are errors with a clear message, never a hang or a crash", () => {
  const options = { stream: "s", group: "g" };

  it("rejects a bad URL without echoing the password", async () => {
    const e = await createRedisConnector({
      name: "bad",
      url: "http://u:hunter2@127.0.0.1:6379",
      options: redisOptionsSchema.parse(options),
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedisSourceError);
    expect(e).toMatchObject({ code: "invalid_url" });
    expect((e as Error).message).toMatch(/redis:\/\/ or rediss:\/\//);
    expect((e as Error).message).not.toContain("hunter2");
  });

  it("rejects refused credentials and a refused connection, quickly", async () => {
    const t = Date.now();
    const wrongUser = await connector(options, "redis://nobody:hunter2@127.0.0.1:6379").catch((x: unknown) => x);
    expect(wrongUser).toMatchObject({ code: "auth_failed", message: expect.stringContaining("WRONGPASS") });
    expect((wrongUser as Error).message).not.toContain("hunter2");

    const scratch = await startScratchRedis(["--requirepass", "right-password"]);
    try {
      const wrong = await connector(options, `redis://:hunter2@127.0.0.1:${scratch.port}`).catch((x: unknown) => x);
      expect(wrong).toMatchObject({ code: "auth_failed" });
      expect((wrong as Error).message).not.toContain("hunter2");
      const right = await connector(options, `redis://:right-password@127.0.0.1:${scratch.port}`);
      expect(await right.take(1, 0).catch((x: unknown) => x)).toMatchObject({
        code: "not_found",
        message: expect.stringContaining("NOGROUP"),
      });
    } finally {
      await scratch.stop();
    }
    const refused = await connector(options, `redis://u:hunter2@127.0.0.1:${scratch.port}`).catch((x: unknown) => x);
    expect(refused).toMatchObject({ code: "unreachable", message: expect.stringContaining("ECONNREFUSED") });
    expect((refused as Error).message).not.toContain("hunter2");
    expect(Date.now() - t).toBeLessThan(10_000);
  });

  it("a broker going away fails the calls in flight and later, and the connector recovers when it is back", async () => {
    const scratch = await startScratchRedis();
    try {
      const c = await connector({ stream: "app", group: "g", dlqStream: "app:dlq" }, scratch.url);
      await c.provision();
      const blocked = c.take(10, 10_000).catch((x: unknown) => x);
      await sleep(200);
      const t = Date.now();
      await scratch.stop();
      expect(await blocked).toMatchObject({ code: "unreachable" });
      expect(Date.now() - t).toBeLessThan(2000);
      await expect(c.waiting()).rejects.toMatchObject({ code: "unreachable" });
      const origin = {
        sourceType: "redis",
        destination: { type: "redis", stream: "app", field: "body" },
        deathReason: null,
        deliveryCount: null,
        messageId: null,
        position: "p",
        publishedAt: null,
        diedAt: null,
        headers: {},
        properties: {},
      } as const;
      expect(await c.publish({ key: "k", body: Buffer.from("x"), origin })).toMatchObject({ outcome: "failed", retryable: true });

      await scratch.start();
      await sleep(1500);
      await c.provision();
      expect(await c.waiting()).toBe(0);
      await c.close();
      await c.close();
      await expect(c.take(1, 0)).rejects.toMatchObject({ code: "closed" });
    } finally {
      await scratch.stop();
    }
  });
});
