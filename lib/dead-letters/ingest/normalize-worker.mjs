// Worker-thread entry for ingest normalization (normalize-pool.ts): registers tsx's loader in this thread (a
// worker does not inherit the main thread's), then normalizes the chunks it is sent, one at a time, in order.
import { parentPort } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { normalizeChunk } = await import("./normalize.ts");

parentPort.on("message", async ({ id, recs, now, settings }) => {
  try {
    parentPort.postMessage({ id, results: await normalizeChunk(recs, now, settings) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
parentPort.postMessage({ ready: true });
