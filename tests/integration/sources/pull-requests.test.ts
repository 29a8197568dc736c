import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { AppError } from "../../../lib/errors/app-error";
import { awaitPull, pruneAnsweredPulls, submitPull } from "../../../lib/sources/pull-requests";
import { requestPull } from "../../../lib/sources/pull-now";
import { waitFor } from "../../replay/fixtures";
import { testDb } from "../helpers";
import { addSource, pull } from "./origin-flow";
import { Broker, RABBITMQ_URL } from "./rabbitmq-broker";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";

// Pull now as a row (lib/sources/pull-requests.ts): answered by a runtime in another process, by the worker
// holding the source's lease when `redrive source pull` asks, resumed by another runtime when the one running it
// is SIGKILLed; and a broker message over the record limit is stored as poison without its body.

setTestAuthEnv();

let db: Db;
let broker: Broker;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  db = await testDb();
  broker = await Broker.connect();
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await broker.cleanup();
  await db.pool.end();
  await closeDb();
});

const verbose = process.env.REDRIVE_TEST_VERBOSE ? "inherit" : "ignore";

function redrive(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ["bin/redrive.mjs", ...args], {
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
    stdio: ["ignore", "pipe", verbose],
  });
  children.add(child);
  return child;
}

/** `redrive worker` answering Pull now requests without draining sources on its own; its runtime's id. */
async function startWorker(leaseMs = 1500): Promise<{ child: ChildProcess; id: string }> {
  const before = new Set((await db.pool.query<{ id: string }>("SELECT id FROM worker")).rows.map((r) => r.id));
  const child = redrive(["worker", "--lease-ms", String(leaseMs), "--no-maintenance", "--no-pull", "--concurrency", "1"]);
  const id = await waitFor(
    "the worker to register",
    async () => (await db.pool.query<{ id: string }>("SELECT id FROM worker")).rows.map((r) => r.id).find((i) => !before.has(i)),
    60_000,
    100,
  );
  return { child, id };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

/** A DLQ holding `bodies`, and a RabbitMQ source reading it as AFC taps. */
async function dlqSource(bodies: Buffer[]): Promise<{ name: string; queue: string }> {
  const suffix = randomBytes(4).toString("hex");
  const queue = `redrive.test.pull-request.${suffix}`;
  await broker.queue(queue, {});
  await broker.publish("", queue, bodies, (i) => ({ messageId: `m-${i}` }));
  await broker.waitForCount(queue, bodies.length);
  const name = await addSource(db, { name: `pr-${suffix}`, type: "rabbitmq", url: RABBITMQ_URL, kind: "afc", options: { queue } });
  return { name, queue };
}

const tap = (i: number, run: string) =>
  Buffer.from(
    JSON.stringify({
      event_id: `pr-${run}-${i}`,
      device_id: `dev-${i % 7}`,
      fare_amount_cents: 250,
      tap_timestamp: "2026-11-01T08:00:00Z",
    }),
  );

async function records(source: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter WHERE origin_source = $1", [source]);
  return rows[0]!.n;
}

describe("Pull now as a request row", () => {
  it("is answered by a runtime in another process: the asker never takes a message itself", async () => {
    const run = randomBytes(3).toString("hex");
    const { name, queue } = await dlqSource(Array.from({ length: 30 }, (_, i) => tap(i, run)));
    const worker = await startWorker();
    try {
      const counts = await requestPull(db.pool, name, { actor: TEST_CTX().actor, requestId: "row-test", timeoutMs: 60_000 });
      expect(counts).toEqual({ pulled: 30, created: 30, duplicates: 0, unreadable: 0 });
      const { rows } = await db.pool.query<{ claimed_by: string; status: string }>(
        "SELECT claimed_by, status FROM source_pull_request WHERE source = $1",
        [name],
      );
      expect(rows).toEqual([{ claimed_by: worker.id, status: "done" }]);
      expect(await records(name)).toBe(30);
      await broker.waitForCount(queue, 0);
    } finally {
      await kill(worker.child);
    }
  });

  it("times out with a clear answer when no runtime takes it, and a runtime that starts later still runs it", async () => {
    const run = randomBytes(3).toString("hex");
    const { name } = await dlqSource([tap(0, run)]);
    const err = await requestPull(db.pool, name, { actor: TEST_CTX().actor, requestId: null, timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(504);
    expect((err as AppError).message).toMatch(/no answer within 2 s .*waiting for a worker or server/);
    const worker = await startWorker();
    try {
      await waitFor("the waiting request to be run", async () => (await records(name)) === 1, 30_000, 100);
    } finally {
      await kill(worker.child);
    }
  });

  it("`redrive source pull` while a worker holds the source's lease waits for that worker's pull and prints its result", async () => {
    const run = randomBytes(3).toString("hex");
    const { name } = await dlqSource(Array.from({ length: 12 }, (_, i) => tap(i, run)));
    const worker = await startWorker(30_000);
    try {
      // As when the worker's puller is in the middle of a round on the source.
      await db.pool.query("UPDATE source SET locked_by = $2, locked_until = now() + interval '1 hour' WHERE name = $1", [name, worker.id]);
      const cli = redrive(["source", "pull", name]);
      let out = "";
      cli.stdout!.on("data", (c: Buffer) => (out += c.toString()));
      const code = await new Promise<number | null>((r) => cli.once("exit", r));
      expect(code).toBe(0);
      expect(JSON.parse(out)).toEqual({ pulled: 12, created: 12, duplicates: 0, unreadable: 0 });
      const { rows } = await db.pool.query<{ claimed_by: string }>("SELECT claimed_by FROM source_pull_request WHERE source = $1", [name]);
      expect(rows).toEqual([{ claimed_by: worker.id }]);
    } finally {
      await kill(worker.child);
    }
  });

  it("resumes on another runtime when the one running it is SIGKILLed: every message stored once, the answer counts each once", async () => {
    const run = randomBytes(3).toString("hex");
    const COUNT = 3000;
    const { name, queue } = await dlqSource(Array.from({ length: COUNT }, (_, i) => tap(i, run)));
    const first = await startWorker(1500);
    const id = await submitPull(db.pool, name, { actor: TEST_CTX().actor, requestId: "kill-test" });
    await waitFor(
      "the first worker to store a page",
      async () =>
        (await db.pool.query<{ pulled: number }>("SELECT pulled FROM source_pull_request WHERE id = $1", [id])).rows[0]!.pulled > 0,
      60_000,
      20,
    );
    await kill(first.child);
    const killedAt = Date.now();
    const second = await startWorker(1500);
    const secondUp = Date.now();
    try {
      const counts = await awaitPull(db.pool, name, id, 120_000);
      const { rows } = await db.pool.query<{ claimed_by: string; attempts: number }>(
        "SELECT claimed_by, attempts FROM source_pull_request WHERE id = $1",
        [id],
      );
      expect(rows[0]!.claimed_by).toBe(second.id);
      expect(rows[0]!.attempts).toBe(2);
      expect(await records(name)).toBe(COUNT);
      expect(counts.created).toBe(COUNT);
      // Messages stored by the first worker but not yet acknowledged come again and are known: not created twice.
      expect(counts.pulled - counts.duplicates).toBe(COUNT);
      await broker.waitForCount(queue, 0);
      const { rows: failures } = await db.pool.query<{ max: number }>(
        "SELECT max(failure_count)::int AS max FROM dead_letter WHERE origin_source = $1",
        [name],
      );
      expect(failures[0]!.max).toBe(1);
      console.log(
        `[pull-requests] answered ${Date.now() - killedAt} ms after the kill, ${Date.now() - secondUp} ms after the second worker registered (lease 1500 ms)`,
      );
    } finally {
      await kill(second.child);
    }
  });
});

describe("answered pull requests", () => {
  it("are forgotten a day after their answer; waiting and running ones are kept whatever their age", async () => {
    const { rows } = await db.pool.query<{ id: string; status: string }>(
      `INSERT INTO source_pull_request (source, actor, status, created_at, finished_at)
       SELECT 'prune-probe', '{}'::jsonb, s, now() - interval '3 days', CASE WHEN s IN ('done', 'failed') THEN f END
       FROM unnest(ARRAY['done', 'failed', 'done', 'waiting', 'running']) WITH ORDINALITY AS t(s, i),
            LATERAL (SELECT CASE WHEN i = 3 THEN now() - interval '1 hour' ELSE now() - interval '2 days' END AS f) AS x
       RETURNING id::text AS id, status`,
    );
    expect(await pruneAnsweredPulls(db.pool, new Date())).toBeGreaterThanOrEqual(2);
    const left = await db.pool.query<{ status: string }>(
      "SELECT status FROM source_pull_request WHERE id = ANY($1::bigint[]) ORDER BY id",
      [rows.map((r) => r.id)],
    );
    expect(left.rows.map((r) => r.status)).toEqual(["done", "waiting", "running"]);
    await db.pool.query("DELETE FROM source_pull_request WHERE source = 'prune-probe'");
  });
});

describe("a broker message over the record limit", () => {
  it("is stored as poison without its body, its size in the reason, and acknowledged", async () => {
    const run = randomBytes(3).toString("hex");
    const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
    big.write(`{"event_id":"big-${run}","pad":"`, 0);
    big.write(`"}`, big.length - 2);
    const { name, queue } = await dlqSource([big, tap(1, run)]);
    const counts = await pull(db, name);
    expect(counts).toEqual({ pulled: 2, created: 2, duplicates: 0, unreadable: 1 });
    const { rows } = await db.pool.query<{ failure_class: string; failure_reason: string; raw: number; payload: string }>(
      `SELECT failure_class::text, reason AS failure_reason, octet_length(coalesce(raw_envelope, '')) AS raw, payload::text AS payload
       FROM dead_letter WHERE origin_source = $1 AND failure_class = 'poison'`,
      [name],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.failure_reason).toContain("20.0 MB (20971520 bytes), larger than the 16.0 MB a record may be");
    expect(rows[0]!.raw).toBe(0);
    expect(rows[0]!.payload.length).toBeLessThan(10);
    await broker.waitForCount(queue, 0);
  });
});
