import { AckPolicy, DeliverPolicy, RetentionPolicy } from "@nats-io/jetstream";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulledMessage, SourceConnector } from "../../../lib/sources/connector";
import { createNatsConnector } from "../../../lib/sources/nats/connector";
import { NatsSourceError } from "../../../lib/sources/nats/errors";
import type { NatsOptions } from "../../../lib/sources/nats/options";
import { haveNatsServer, startPrivateNatsServer } from "./nats-server";
import {
  addDyingConsumer,
  addStream,
  allBytes,
  consumeBadly,
  elapsed,
  NATS_URL,
  openAdmin,
  originFor,
  publishWithHeaders,
  runNames,
  waitingReaches,
  type Admin,
} from "./nats-fixtures";

// The NATS source against the real server (2.9.10 here): consumers give up on messages the JetStream way —
// max_deliver reached without an ack, or term() — and the connector must hand every one of them out until
// acknowledged, with its origin, and publish them back where they came from.

let admin: Admin;
const names = runNames();
const open: SourceConnector[] = [];

async function connector(source: string, options: NatsOptions, url = NATS_URL): Promise<SourceConnector> {
  const c = await createNatsConnector({ name: source, url, options });
  open.push(c);
  return c;
}

/** A stream with a dying consumer `worker`, and a provisioned source for it. */
async function scenario(retention: RetentionPolicy = RetentionPolicy.Limits, maxDeliver = 2, ackWaitMs = 30_000) {
  const { stream, subject, source } = names.next();
  await addStream(admin, stream, subject, retention);
  await addDyingConsumer(admin, stream, "worker", maxDeliver);
  const c = await connector(source, { stream, ackWaitMs });
  await c.provision();
  return { stream, subject, source, c };
}

const sortedPositions = (ms: readonly PulledMessage[]) => ms.map((m) => m.origin.position).sort();

beforeAll(async () => {
  admin = await openAdmin();
});

afterAll(async () => {
  for (const c of open) await c.close();
  await names.cleanUp(admin);
  await admin.nc.close();
});

describe("NATS source: dead letters the JetStream way", () => {
  it("returns max_deliver dead letters with their origin and body bytes intact, also those that died while no connector ran", async () => {
    const { stream, subject, source, c } = await scenario(RetentionPolicy.Limits, 2);
    // provision() ran; the connector goes away before anything dies.
    await c.close();
    const body = allBytes();
    const before = Date.now();
    const acks = [
      await publishWithHeaders(
        admin,
        `${subject}.created`,
        body,
        [
          ["X-Trace", "t-1"],
          ["X-Multi", "a"],
          ["X-Multi", "b"],
        ],
        "order-1",
      ),
      await publishWithHeaders(admin, `${subject}.updated`, new TextEncoder().encode('{"id":2}'), []),
    ];
    const later = await connector(source, { stream, ackWaitMs: 30_000 });
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(later, 2));

    const taken = await later.take(10, 2000);
    expect(taken).toHaveLength(2);
    // The producer's Nats-Msg-Id when it set one (what an investigator has in hand), else the stream sequence.
    const first = taken.find((m) => m.origin.messageId === "order-1");
    expect(first?.problem).toBeUndefined();
    expect(new Uint8Array(first?.body ?? [])).toEqual(body);
    expect(first?.origin).toMatchObject({
      sourceType: "nats",
      destination: { type: "nats", subject: `${subject}.created`, stream },
      deathReason: "max_deliveries",
      deliveryCount: 2,
      messageId: "order-1",
      position: `${stream}:${acks[0]?.seq}@${(await admin.jsm.streams.info(stream)).created}`,
      headers: { "X-Trace": "t-1", "X-Multi": ["a", "b"], "Nats-Msg-Id": "order-1" },
      properties: { consumer: "worker" },
    });
    const publishedAt = Date.parse(first?.origin.publishedAt ?? "");
    const diedAt = Date.parse(first?.origin.diedAt ?? "");
    expect(first?.origin.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(publishedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(diedAt).toBeGreaterThan(publishedAt);
    const second = taken.find((m) => m.origin.messageId === String(acks[1]?.seq));
    expect(second?.body.toString()).toBe('{"id":2}');
    expect(second?.origin.headers).toEqual({});
    expect(second?.origin.destination).toEqual({ type: "nats", subject: `${subject}.updated`, stream });
  });

  it("returns term()'d messages as terminated", async () => {
    const { stream, subject, c } = await scenario(RetentionPolicy.Limits, 5);
    const pa = await admin.js.publish(`${subject}.bad`, "cannot parse this");
    await consumeBadly(admin, stream, "worker", "term", waitingReaches(c, 1));
    const [m] = await c.take(10, 2000);
    expect(m?.origin).toMatchObject({
      deathReason: "terminated",
      deliveryCount: 1,
      messageId: String(pa.seq),
      destination: { subject: `${subject}.bad` },
    });
    expect(m?.body.toString()).toBe("cannot parse this");
    expect(m?.origin.properties).toMatchObject({ consumer: "worker", consumerSeq: 1 });
  });

  it("keeps a term()'d message from a workqueue stream as a problem: the server removed it on term()", async () => {
    const { stream, subject, c } = await scenario(RetentionPolicy.Workqueue, 5);
    const pa = await admin.js.publish(`${subject}.bad`, "gone after term");
    await consumeBadly(admin, stream, "worker", "term", waitingReaches(c, 1));
    const [m] = await c.take(10, 2000);
    expect(m?.problem).toMatch(/no longer in stream/);
    expect(m?.body.length).toBe(0);
    const { created } = await admin.jsm.streams.info(stream);
    expect(m?.origin).toMatchObject({
      position: `${stream}:${pa.seq}@${created}`,
      deathReason: "terminated",
      destination: { subject: "", stream },
    });
    await c.ack(m ? [m] : []);
    expect(await c.waiting()).toBe(0);
  });

  it("captures only the named consumer's dead letters when one is named", async () => {
    const { stream, subject, source } = names.next();
    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await addDyingConsumer(admin, stream, "mine", 1);
    await addDyingConsumer(admin, stream, "theirs", 1);
    const c = await connector(source, { stream, consumer: "mine", ackWaitMs: 30_000 });
    await c.provision();
    await admin.js.publish(`${subject}.x`, "x");
    await consumeBadly(
      admin,
      stream,
      "theirs",
      "never-ack",
      async () =>
        (await admin.jsm.consumers.info(stream, "theirs")).num_ack_pending === 0 &&
        (await admin.jsm.consumers.info(stream, "theirs")).num_pending === 0,
    );
    await consumeBadly(admin, stream, "mine", "never-ack", waitingReaches(c, 1));
    const taken = await c.take(10, 500);
    expect(taken.map((m) => m.origin.properties.consumer)).toEqual(["mine"]);
  });

  it("hands out one dead letter when two consumers gave up on the same message, and its ack settles both advisories", async () => {
    const { stream, subject, source } = names.next();
    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await addDyingConsumer(admin, stream, "a", 1);
    await addDyingConsumer(admin, stream, "b", 1);
    const c = await connector(source, { stream, ackWaitMs: 30_000 });
    await c.provision();
    await admin.js.publish(`${subject}.x`, "shared");
    await consumeBadly(admin, stream, "a", "never-ack", waitingReaches(c, 1));
    await consumeBadly(admin, stream, "b", "never-ack", waitingReaches(c, 2));
    const taken = await c.take(10, 500);
    expect(taken).toHaveLength(1);
    expect([...((taken[0]?.origin.properties.consumers as string[] | undefined) ?? [])].sort()).toEqual(["a", "b"]);
    await c.ack(taken);
    expect(await c.waiting()).toBe(0);
  });
});

describe("NATS source: nothing is lost", () => {
  it("hands unacknowledged dead letters out again after the connector closed; acknowledged ones are gone; waiting() counts", async () => {
    const { stream, subject, source, c } = await scenario(RetentionPolicy.Limits, 1, 1000);
    for (let i = 0; i < 5; i++) await admin.js.publish(`${subject}.m`, `m${i}`);
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(c, 5));
    expect(await c.waiting()).toBe(5);

    const firstThree = await c.take(3, 1000);
    expect(firstThree).toHaveLength(3);
    expect(await c.waiting()).toBe(5); // taken but not acknowledged still count
    await c.close(); // as a crash would: nothing acknowledged

    const next = await connector(source, { stream, ackWaitMs: 1000 });
    const rest = await next.take(10, 500);
    expect(rest).toHaveLength(2); // the other three are still out with the closed connector
    await next.ack(rest);
    expect(await next.waiting()).toBe(3);

    // After the ack wait the first three come back, the same dead letters at the same positions.
    const again = await next.take(10, 3000);
    expect(sortedPositions(again)).toEqual(sortedPositions(firstThree));
    expect(again.map((m) => m.body.toString()).sort()).toEqual(firstThree.map((m) => m.body.toString()).sort());
    await next.ack(again);
    expect(await next.waiting()).toBe(0);
    const { value: none, ms } = await elapsed(() => next.take(10, 1500));
    expect(none).toEqual([]);
    expect(ms).toBeGreaterThan(1200); // a redelivery would have ended the wait early
  });

  it("hands dead letters out again when the process that took them dies before ack()", async () => {
    const { stream, subject, source, c } = await scenario(RetentionPolicy.Workqueue, 1, 1000);
    for (let i = 0; i < 4; i++) await admin.js.publish(`${subject}.m`, `m${i}`);
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(c, 4));
    const child = fileURLToPath(new URL("./nats-take-child.ts", import.meta.url));
    const run = await promisify(execFile)(process.execPath, [
      "--conditions=react-server",
      "--import",
      "tsx",
      child,
      NATS_URL,
      source,
      stream,
      "3",
    ]).then(
      () => {
        throw new Error("the child was meant to die");
      },
      (err: { signal?: string; stdout?: string }) => err,
    );
    expect(run.signal).toBe("SIGKILL");
    const died = JSON.parse(run.stdout ?? "[]") as string[];
    expect(died).toHaveLength(3);

    const rest = await c.take(10, 300);
    expect(rest).toHaveLength(1);
    await c.ack(rest);
    const back = await c.take(10, 3000); // after the 1 s ack wait
    expect(sortedPositions(back)).toEqual([...died].sort());
    expect(back.every((m) => m.body.length === 2 && m.problem === undefined)).toBe(true);
    await c.ack(back);
    expect(await c.waiting()).toBe(0);
    expect((await admin.jsm.streams.info(stream)).state.messages).toBe(0);
  });

  it("no longer counts dead letters in waiting() once ack() has resolved, however many it settled", async () => {
    const { stream, subject, c } = await scenario(RetentionPolicy.Limits, 1);
    const n = 300;
    await Promise.all(Array.from({ length: n }, (_, i) => admin.js.publish(`${subject}.m`, `m${i}`)));
    await consumeBadly(admin, stream, "worker", "term", waitingReaches(c, n));
    const taken = await c.take(n, 1000);
    expect(taken).toHaveLength(n);
    await c.ack(taken);
    expect(await c.waiting()).toBe(0);
  });

  it.each([
    [RetentionPolicy.Workqueue, 0],
    [RetentionPolicy.Interest, 0],
    [RetentionPolicy.Limits, 2],
  ])("on ack, under %s retention, leaves %i of the 2 dead messages in their stream", async (retention, left) => {
    const { stream, subject, c } = await scenario(retention, 1);
    await admin.js.publish(`${subject}.a`, "a");
    await admin.js.publish(`${subject}.b`, "b");
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(c, 2));
    // JetStream itself keeps a message whose consumer ran out of deliveries, whatever the retention.
    expect((await admin.jsm.streams.info(stream)).state.messages).toBe(2);
    const taken = await c.take(10, 1000);
    expect(taken).toHaveLength(2);
    await c.ack(taken);
    expect((await admin.jsm.streams.info(stream)).state.messages).toBe(left);
    expect(await c.waiting()).toBe(0);
    await c.ack(taken); // a second ack (a retry after a lost answer) is harmless
  });
});

describe("NATS source: publish back", () => {
  it("puts the message back on its subject, where a plain consumer reads its body and headers; the same key again is deduped", async () => {
    const { stream, subject, c } = await scenario(RetentionPolicy.Limits, 1);
    const body = allBytes();
    await publishWithHeaders(
      admin,
      `${subject}.created`,
      body,
      [
        ["X-Trace", "t-9"],
        ["X-Multi", "1"],
        ["X-Multi", "2"],
      ],
      "original-id",
    );
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(c, 1));
    const [dead] = await c.take(1, 1000);
    if (!dead) throw new Error("no dead letter");
    await c.ack([dead]);

    const last = (await admin.jsm.streams.info(stream)).state.last_seq;
    await admin.jsm.consumers.add(stream, {
      durable_name: "reader",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: last + 1,
      filter_subject: `${subject}.created`,
    });
    const key = `replay-${names.run}-1`;
    expect(await c.publish({ key, body: dead.body, origin: dead.origin })).toEqual({ outcome: "applied" });
    expect(await c.publish({ key, body: dead.body, origin: dead.origin })).toEqual({ outcome: "deduped" });

    const reader = await admin.js.consumers.get(stream, "reader");
    const got = [];
    for await (const m of await reader.fetch({ max_messages: 10, expires: 1500 })) {
      got.push(m);
      m.ack();
    }
    expect(got).toHaveLength(1);
    const m = got[0];
    expect(m?.subject).toBe(`${subject}.created`);
    expect(new Uint8Array(m?.data ?? [])).toEqual(body);
    expect(m?.headers?.get("X-Trace")).toBe("t-9");
    expect(m?.headers?.values("X-Multi")).toEqual(["1", "2"]);
    expect(m?.headers?.get("Idempotency-Key")).toBe(key);
    expect(m?.headers?.get("Nats-Msg-Id")).toBe(key); // not the original's id, which the stream would call a duplicate
  });

  it("fails, retryably and saying why, when no stream captures the subject any more", async () => {
    const { stream, c } = await scenario();
    const r = await c.publish({ key: "k", body: Buffer.from("x"), origin: originFor(stream, `nowhere_${names.run}.x`) });
    expect(r).toMatchObject({
      outcome: "failed",
      retryable: true,
      error: expect.stringContaining(`no JetStream stream captures subject nowhere_${names.run}.x`),
    });
  });

  it("refuses, for good, a dead letter whose message was gone when it was pulled", async () => {
    const { stream, c } = await scenario();
    const r = await c.publish({ key: "k", body: Buffer.alloc(0), origin: originFor(stream, "") });
    expect(r).toMatchObject({ outcome: "failed", retryable: false });
  });
});

describe("NATS source: waiting, provisioning and failures", () => {
  it("take() with nothing waiting returns [] after about waitMs, and returns at once when dead letters are there", async () => {
    const { stream, subject, c } = await scenario(RetentionPolicy.Limits, 1);
    const empty = await elapsed(() => c.take(100, 700));
    expect(empty.value).toEqual([]);
    expect(empty.ms).toBeGreaterThan(650);
    expect(empty.ms).toBeLessThan(1500);
    const noWait = await elapsed(() => c.take(100, 0));
    expect(noWait.value).toEqual([]);
    expect(noWait.ms).toBeLessThan(300);

    for (let i = 0; i < 3; i++) await admin.js.publish(`${subject}.m`, `m${i}`);
    await consumeBadly(admin, stream, "worker", "never-ack", waitingReaches(c, 3));
    const some = await elapsed(() => c.take(100, 10_000));
    expect(some.value).toHaveLength(3);
    expect(some.ms).toBeLessThan(1000); // 3 of 100 do not sit out the 10 s
  });

  it("provision() is idempotent and checks the stream exists; deprovision() removes the advisory stream and consumer", async () => {
    const { stream, subject, source } = names.next();
    const c = await connector(source, { stream, ackWaitMs: 5000 });
    await expect(c.provision()).rejects.toMatchObject({
      code: "invalid_config",
      message: expect.stringContaining(`stream ${stream} does not exist`),
    });
    await expect(c.take(1, 0)).rejects.toMatchObject({ code: "not_provisioned" });
    await expect(c.waiting()).rejects.toMatchObject({ code: "not_provisioned" });

    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await c.provision();
    await c.provision();
    const changed = await connector(source, { stream, ackWaitMs: 7000 });
    await changed.provision(); // a changed ack wait updates the consumer
    const advisoryStream = `REDRIVE_ADVISORIES_${source}`;
    const info = await admin.jsm.consumers.info(advisoryStream, `REDRIVE_${source}`);
    expect(info.config.ack_wait).toBe(7000 * 1_000_000);
    expect((await admin.jsm.streams.info(advisoryStream)).config).toMatchObject({ storage: "file", retention: "workqueue" });
    expect(await c.waiting()).toBe(0);

    // A second source for the same stream would capture the same advisories: refused, saying so.
    const twin = await connector(`${source}-twin`, { stream, ackWaitMs: 5000 });
    await expect(twin.provision()).rejects.toMatchObject({ message: expect.stringContaining("already captures") });

    await c.deprovision();
    await c.deprovision();
    await expect(admin.jsm.streams.info(advisoryStream)).rejects.toThrow(/stream not found/);
  });

  it("rejects a bad URL, a server that is not there, and refused credentials with clear messages and no password", async () => {
    const options = { stream: "S", ackWaitMs: 1000 };
    const bad = createNatsConnector({ name: "bad", url: "amqp://u:hunter2@127.0.0.1:4222", options });
    await expect(bad).rejects.toBeInstanceOf(NatsSourceError);
    await expect(bad).rejects.toMatchObject({ code: "invalid_config", message: expect.not.stringContaining("hunter2") });
    await expect(createNatsConnector({ name: "opts", url: NATS_URL, options: { stream: "a.b", ackWaitMs: 1000 } })).rejects.toMatchObject({
      code: "invalid_config",
      message: expect.stringContaining("stream: stream must be a JetStream name"),
    });

    const down = await elapsed(() =>
      createNatsConnector({ name: "down", url: "nats://u:hunter2@127.0.0.1:1", options }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(down.value).toMatchObject({ code: "connect_failed", message: expect.stringContaining("connection refused") });
    expect((down.value as Error).message).not.toContain("hunter2");
    expect(down.ms).toBeLessThan(6000);
  });

  it.skipIf(!haveNatsServer)("rejects credentials the server refuses, without the password", async () => {
    const server = await startPrivateNatsServer({ auth: { user: "redrive", pass: "right-pass" } });
    try {
      const url = (pass: string) => `nats://redrive:${pass}@127.0.0.1:${server.port}`;
      const refused = await createNatsConnector({ name: "auth", url: url("hunter2"), options: { stream: "S", ackWaitMs: 1000 } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toMatchObject({
        code: "auth_failed",
        message: expect.stringMatching(/refused the credentials.*authorization violation/i),
      });
      expect((refused as Error).message).not.toContain("hunter2");
      const ok = await createNatsConnector({ name: "auth", url: url("right-pass"), options: { stream: "S", ackWaitMs: 1000 } });
      await ok.close();
    } finally {
      await server.dispose();
    }
  });

  it.skipIf(!haveNatsServer)("rejects a server without JetStream, saying so", async () => {
    const server = await startPrivateNatsServer({ jetstream: false });
    try {
      const url = `nats://127.0.0.1:${server.port}`;
      await expect(createNatsConnector({ name: "nojs", url, options: { stream: "S", ackWaitMs: 1000 } })).rejects.toMatchObject({
        code: "connect_failed",
        message: expect.stringContaining("JetStream is not enabled"),
      });
    } finally {
      await server.dispose();
    }
  });

  it.skipIf(!haveNatsServer)(
    "survives the server going away: methods reject with clear messages, nothing crashes, and it works again after a restart",
    async () => {
      const server = await startPrivateNatsServer();
      try {
        const url = `nats://127.0.0.1:${server.port}`;
        const { stream, subject, source } = names.next();
        const c = await connector(source, { stream, ackWaitMs: 1000 }, url);
        const own = await openAdmin(`127.0.0.1:${server.port}`);
        await own.jsm.streams.add({ name: stream, subjects: [`${subject}.>`], retention: RetentionPolicy.Workqueue });
        await c.provision();

        await server.kill();
        const [took, published, counted] = await Promise.all([
          c.take(10, 200).then(
            () => null,
            (e: unknown) => e,
          ),
          c.publish({ key: "k", body: Buffer.from("x"), origin: originFor(stream, `${subject}.x`) }),
          c.waiting().then(
            () => null,
            (e: unknown) => e,
          ),
        ]);
        expect(took).toMatchObject({ code: "timeout", message: expect.stringContaining("no answer") });
        expect(published).toMatchObject({ outcome: "failed", retryable: true });
        expect(counted).toMatchObject({ code: "timeout", message: expect.stringContaining(`127.0.0.1:${server.port}`) });

        await server.start();
        // Reconnects on its own; JetStream needs a moment to load the streams again.
        const deadline = Date.now() + 20_000;
        let waiting: number | null = null;
        while (waiting === null && Date.now() < deadline) {
          waiting = await c.waiting().catch(() => null);
          if (waiting === null) await new Promise((r) => setTimeout(r, 250));
        }
        expect(waiting).toBe(0);
        expect(await c.take(10, 100)).toEqual([]);
        expect(await c.publish({ key: "k2", body: Buffer.from("y"), origin: originFor(stream, `${subject}.y`) })).toEqual({
          outcome: "applied",
        });
        await own.nc.close();
      } finally {
        await server.dispose();
      }
    },
  );

  it("close() is idempotent and later calls reject as closed", async () => {
    const { stream, c } = await scenario();
    await c.close();
    await c.close();
    await expect(c.take(1, 0)).rejects.toMatchObject({ code: "closed" });
    await expect(c.publish({ key: "k", body: Buffer.alloc(0), origin: originFor(stream, "x") })).rejects.toMatchObject({ code: "closed" });
  });
});
