import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpSinkSchema } from "@/lib/replay/batch/batch-schemas";
import { httpSink } from "@/lib/replay/sinks/http-sink";
import type { Submission } from "@/lib/replay/sinks/sink";

// The HTTP sink's timeout covers the whole exchange, against a real server on loopback: one that never answers,
// and one that sends its status and then stalls in the body. Both end as a retry that says it timed out, in about
// the configured time; the worker's stop ends a request at once and says so.

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

beforeAll(async () => {
  server = createServer((req, res) => {
    open.push(res);
    req.resume();
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

const sinkTo = (path: string, timeoutMs: number) =>
  httpSink(HttpSinkSchema.parse({ type: "http", url: `${base}${path}`, timeoutMs, concurrency: 1 }), "test-worker");

describe("HTTP sink timeout", () => {
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
});
