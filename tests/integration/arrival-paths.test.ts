import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runImport, type ImportResult } from "../../components/import/run-import";
import { closeDb, getDb, type Db } from "../../lib/db/client";
import type { IngestResult } from "../../lib/dead-letters/ingest/arrival-outcome";
import { RECORD_TOO_LARGE } from "../../lib/dead-letters/ingest/split";
import { afcRecord } from "../replay/fixtures";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { addSource, pull } from "./sources/origin-flow";
import { Broker, RABBITMQ_URL } from "./sources/rabbitmq-broker";

// Every way a dead letter arrives, each through its own public surface, with the same two records: an ordinary one
// and one past the 16 MB record limit. The entry point (lib/dead-letters/ingest/ingest.ts) owns the limit, so each
// path refuses or keeps the big one as its documented answer says — an envelope is rejected by itself, a capture
// request is refused whole (413), a broker message is stored as poison without its body — and stores the ordinary
// one. tests/unit/architecture.test.ts "one way in" shows that the entry point is the only way to the store.

setTestAuthEnv();

const MB = 1024 * 1024;
const run = randomBytes(3).toString("hex");
let db: Db;
let token: string;
let broker: Broker;

beforeAll(async () => {
  db = await testDb();
  process.env.DATABASE_URL = db.url;
  token = await makeToken(getDb(), (await makeUser(getDb(), "producer")).id);
  broker = await Broker.connect();
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await broker.cleanup();
  await db.pool.end();
  await closeDb();
});

/** An NDJSON line of `bytes` bytes that is one AFC envelope: the limit, not its content, decides. */
function bigLine(bytes: number, key: string): string {
  const head = `{"kind":"afc","source":"paths","idempotency_key":"${key}","pad":"`;
  return `${head}${"x".repeat(bytes - head.length - 2)}"}`;
}

const ordinary = (path: string) => afcRecord({ eventId: `paths-${run}-${path}`, deviceId: "d-paths", at: 1_000 });

async function stored(key: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter WHERE payload::text LIKE $1", [
    `%paths-${run}-${key}%`,
  ]);
  return rows[0]!.n;
}

async function postEnvelopes(body: Uint8Array<ArrayBuffer> | string, contentType: string): Promise<Response> {
  const { POST } = await import("../../app/api/dead-letters/route");
  return POST(
    new Request("http://localhost/api/dead-letters", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body,
    }),
    { params: Promise.resolve({}) },
  );
}

const tooLarge = (r: IngestResult | undefined) => r?.status === "rejected" && r.errors.some((e) => e.message === RECORD_TOO_LARGE);

describe("every arrival path, through the one entry point", () => {
  it("POST /api/dead-letters: the record over the limit is rejected by itself, the ordinary one stored", async () => {
    const res = await postEnvelopes(`${ordinary("post")}\n${bigLine(17 * MB, `big-post-${run}`)}\n`, "application/x-ndjson");
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: IngestResult[] };
    expect(results.map((r) => r.status)).toEqual(["created", "rejected"]);
    expect(tooLarge(results[1])).toBe(true);
    expect(await stored("post")).toBe(1);
  }, 60_000);

  it("the dashboard's import (slices posted to /api/dead-letters): the same answer, renumbered for the file", async () => {
    // The browser's fetch, answered by the route handler in this process.
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      expect(url).toBe("/api/dead-letters");
      return postEnvelopes(init.body as Uint8Array<ArrayBuffer>, new Headers(init.headers).get("content-type")!);
    });
    const seen: ImportResult[] = [];
    const counts = await runImport(new Blob([`${ordinary("browser")}\n${bigLine(17 * MB, `big-browser-${run}`)}\n`]), {
      onResults: (results) => seen.push(...results),
    });
    vi.unstubAllGlobals();
    expect(counts).toEqual({ created: 1, duplicate: 0, rejected: 1 });
    expect(seen[1]).toMatchObject({ index: 1, line: 2 });
    expect(tooLarge(seen[1])).toBe(true);
    expect(await stored("browser")).toBe(1);
  }, 60_000);

  it("redrive import: the same answer on stdout, exit 1 for the rejection", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "redrive-paths-"));
    try {
      const file = path.join(dir, "in.ndjson");
      await writeFile(file, `${ordinary("cli")}\n${bigLine(17 * MB, `big-cli-${run}`)}\n`);
      const child = spawn(process.execPath, ["bin/redrive.mjs", "import", file, "--threads", "1"], {
        env: { ...process.env, DATABASE_URL: db.url },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      const lines = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as IngestResult);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ index: 1, line: 2, status: "rejected" });
      expect(tooLarge(lines[0])).toBe(true);
      expect(await stored("cli")).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("POST /api/afc/taps: a request over the limit is refused whole (413); an ordinary failing tap is captured", async () => {
    const { POST } = await import("../../app/api/afc/taps/route");
    const capture = (body: string) =>
      POST(
        new Request("http://localhost/api/afc/taps?source=paths", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
          body,
        }),
        { params: Promise.resolve({}) },
      );
    const failing = JSON.stringify({ event_id: `paths-${run}-taps`, device_id: "d-1", fare_amount_cents: 250, tap_timestamp: "x" });
    const big = await capture(`${failing}\n${bigLine(17 * MB, `big-taps-${run}`)}\n`);
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: "payload_too_large", issues: [{ path: "body" }] } });
    expect(await stored("taps")).toBe(0);
    const res = await capture(`${failing}\n`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ passed: 0, captured: 1, results: [{ index: 0, status: "captured" }] });
    expect(await stored("taps")).toBe(1);
  }, 60_000);

  it("a broker pull: the message over the limit is stored as poison without its body, its size named", async () => {
    const queue = `redrive.test.paths.${run}`;
    await broker.queue(queue, {});
    const big = Buffer.from(bigLine(17 * MB, `big-pull-${run}`));
    await broker.publish("", queue, [Buffer.from(ordinary("pull")), big], (i) => ({ messageId: `m-${i}` }));
    await broker.waitForCount(queue, 2);
    const name = await addSource(db, { name: `paths-${run}`, type: "rabbitmq", url: RABBITMQ_URL, kind: "afc", options: { queue } });
    expect(await pull(db, name)).toEqual({ pulled: 2, created: 2, duplicates: 0, unreadable: 1 });
    const { rows } = await db.pool.query<{ reason: string; raw: number }>(
      "SELECT reason, octet_length(coalesce(raw_envelope, '')) AS raw FROM dead_letter WHERE origin_source = $1 AND failure_class = 'poison'",
      [name],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.reason).toContain(`(${big.length} bytes), larger than the 16.0 MB a record may be`);
    expect(rows[0]!.raw).toBe(0);
    expect(await stored("pull")).toBe(1);
    await broker.waitForCount(queue, 0);
  }, 120_000);
});
