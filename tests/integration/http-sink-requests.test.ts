import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpSinkSchema } from "@/lib/replay/sinks/http/http-config";
import { httpSink } from "@/lib/replay/sinks/http/http-sink";
import type { Submission } from "@/lib/replay/sinks/sink";

// The HTTP sink's requests against a real server on loopback. The timeout covers the whole exchange: a receiver
// that never answers and one that sends its status and then stalls in the body both end in about the configured
// time; the worker's stop ends a request at once and says so. The headers: each configured one once, the sink's
// content type and the stored key.

const sub: Submission = {
  itemId: "1",
  batchId: "1",
  deadLetterId: "1",
  kind: "spatial",
  idempotencyKey: "timeout-key-1",
  entityKey: null,
  observedAt: "2026-01-01T00:00:00.000000Z",
  payload: { type: "Feature", geometry: null, properties: {} },
};

let server: Server;
let base: string;
const open: ServerResponse[] = [];
let received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === "/echo") {
      received = req.rawHeaders;
      res.end("ok");
      return;
    }
    open.push(res);
    if (req.url === "/stall-body") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    }
    // otherwise: never answers
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
});

const sinkTo = (path: string, timeoutMs: number, headers: Record<string, string> = {}) =>
  httpSink(HttpSinkSchema.parse({ type: "http", url: `${base}${path}`, timeoutMs, concurrency: 1, headers }), "test-worker");

describe("HTTP sink requests", () => {
  it("a receiver that never answers: retry, timed out after the configured time", async () => {
    const started = performance.now();
    const result = await sinkTo("/never", 300).submit(sub, new AbortController().signal);
    const took = performance.now() - started;
    expect(result).toMatchObject({ outcome: "retry", reason: "timed out after 300 ms" });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3_000);
  });

  it("a receiver that answers 200 and stalls in the body: the timeout covers the body too", async () => {
    const result = await sinkTo("/stall-body", 300).submit(sub, new AbortController().signal);
    // The status came; the snippet read ends at the timeout and the answer is classified as received.
    expect(result.outcome).toBe("applied");
  });

  it("the worker's stop ends a request in flight at once", async () => {
    const stop = new AbortController();
    const started = performance.now();
    const pending = sinkTo("/never", 30_000).submit(sub, stop.signal);
    setTimeout(() => stop.abort(), 100);
    expect(await pending).toMatchObject({ outcome: "retry", reason: "aborted: the worker is stopping" });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("sends the configured headers once each, the user agent replaced by a configured one, with its own content type and key", async () => {
    // (the sink's schema refuses a configured content type or key: HttpSinkSchema's RESERVED_HEADERS)
    const sink = sinkTo("/echo", 5_000, { "User-Agent": "parcels-replayer", "X-Token": "t-1" });
    expect(await sink.submit(sub, new AbortController().signal)).toEqual({ outcome: "applied" });
    const pairs: [string, string][] = [];
    for (let i = 0; i < received.length; i += 2) pairs.push([received[i]!.toLowerCase(), received[i + 1]!]);
    const all = (name: string) => pairs.filter(([n]) => n === name).map(([, v]) => v);
    expect(all("user-agent")).toEqual(["parcels-replayer"]);
    expect(all("x-token")).toEqual(["t-1"]);
    expect(all("content-type")).toEqual(["application/json"]);
    expect(all("idempotency-key")).toEqual(["timeout-key-1"]);
  });
});
