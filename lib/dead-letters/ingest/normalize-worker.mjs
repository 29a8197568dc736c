// Worker-thread entry for ingest normalization (normalize-pool.ts): registers tsx's loader in this thread (a
// worker does not inherit the main thread's), then runs the tasks it is sent, one at a time, in order:
// "normalize" a chunk of records, "parse-check" a JSON body the main thread must not parse itself, or
// "normalize-pulled" a page of broker messages, "gate-taps" a capture request's body, "rule-repairs" a rule's other repair of stored geometries, "analyze" one geometry (an analyst's edit), or "read" a stored record and build a request's answer from it
// (lib/api/off-thread-reads.ts: a heavy record's detail, a repair preview, a revealed field), or "stream-pull" /
// "stream-cancel" a stream of stored records run here (an export), one chunk per pull.
import { setPriority } from "node:os";
import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { register } from "tsx/esm/api";

// Below the thread that answers requests: on a small machine, threads normalizing a heavy record at full speed
// would leave it waiting for a core. On Linux a thread's nice value is its own (pid 0: this thread), so the main
// thread keeps its priority; where that fails (other platforms), the thread runs at the normal one.
try {
  setPriority(10);
} catch {
  // not permitted here: the thread runs at the normal priority
}

register();
const { normalizeChunk, rowsAsBytes } = await import("./normalize.ts");
const { geosBroken, getGeos } = await import("../../spatial/geos.ts");
const { parseJsonOrPython } = await import("../../json/lossless.ts");
const { decodeDeferred } = await import("./split.ts");
const { preparePulled } = await import("./pulled-message.ts");
const { gateTaps } = await import("./tap-gate.ts");
const { analyzeGeometry } = await import("../../spatial/analyze.ts");
const { otherRepairOf } = await import("./rule-facts.ts");
// The reads reach the database: their modules are marked server-only, resolved here as on the server.
await import("../../../bin/server-side.mjs");
const { AppError } = await import("../../errors/app-error.ts");

// A "read" names the module that holds its task (lib/api/off-thread-reads.ts sends its own path): the reads reach
// triage and forensics, which reach this pool, so this thread learns of them from its caller instead of importing them.
const PROJECT = new URL("../../../", import.meta.url);
const readModules = new Map();
function readModule(path) {
  if (!/^lib\/[\w/-]+\.ts$/.test(path)) throw new Error(`not a module of this project: ${path}`);
  if (!readModules.has(path)) readModules.set(path, import(new URL(path, PROJECT).href));
  return readModules.get(path);
}

// The streams open on this thread (normalize-pool.ts openStream), by the id the pool gave them: each a promise of
// its reader, set before the first await so a cancel that follows the first pull finds it.
const streams = new Map();
function streamReader(streamId, module, name, databaseUrl, args) {
  if (!streams.has(streamId)) {
    if (module === undefined) throw new Error(`no stream ${streamId} is open on this thread`);
    const opened = readModule(module).then(({ openOffThreadStream }) => openOffThreadStream(name, databaseUrl, args).getReader());
    streams.set(streamId, opened);
  }
  return streams.get(streamId);
}

// Past these the thread asks to be replaced (normalize-pool.ts retire): a wasm heap never shrinks, and V8 keeps
// the pages a 10 MB record's parse grew its heap to. A thread normalizing ordinary records stays far below
// both, so only a heavy record costs a restart (off the request path: the pool starts the replacement while the
// others work).
const RETIRE_GEOS_HEAP_BYTES = 256 * 1024 * 1024;
const RETIRE_V8_HEAP_BYTES = 512 * 1024 * 1024;
/** A record this long (past the 200k-vertex default limit's ~8 MB) has grown the heap whatever it held. */
const RETIRE_RECORD_CHARS = 8 * 1024 * 1024;

async function shouldRetire(texts) {
  if (texts.some((t) => t.length > RETIRE_RECORD_CHARS)) return true; // a string's or bytes' length
  if (await geosBroken()) return true;
  const geos = await getGeos().catch(() => null);
  if (geos && geos.heapBytes() > RETIRE_GEOS_HEAP_BYTES) return true;
  return getHeapStatistics().total_heap_size > RETIRE_V8_HEAP_BYTES;
}

parentPort.on("message", async (message) => {
  const {
    id,
    task,
    recs,
    now,
    settings,
    rec,
    geometryText,
    opts,
    module,
    databaseUrl,
    name,
    args,
    streamId,
    reason,
    bodies,
    maxBodyBytes,
    geometries,
    repair,
    digest,
    rules,
    body,
    format,
    source,
  } = message;
  try {
    if (task === "stream-pull" || task === "stream-cancel") {
      let reader;
      try {
        reader = await streamReader(streamId, module, name, databaseUrl, args);
        if (task === "stream-cancel") {
          streams.delete(streamId);
          await reader.cancel(reason === undefined ? undefined : new Error(reason));
          parentPort.postMessage({ id, done: true, retire: await shouldRetire([]) });
          return;
        }
        const { done, value } = await reader.read();
        if (done) streams.delete(streamId);
        // A chunk's buffer is its own (TextEncoder's): it crosses without a copy.
        const chunk = done ? undefined : value;
        parentPort.postMessage({ id, done, chunk, retire: await shouldRetire(chunk ? [chunk] : []) }, chunk ? [chunk.buffer] : []);
      } catch (err) {
        streams.delete(streamId);
        throw err;
      }
      return;
    }
    if (task === "read") {
      const { runOffThreadRead } = await readModule(module);
      const json = new TextEncoder().encode(await runOffThreadRead(name, databaseUrl, args));
      // Parsing 24 MB grew this thread's heap: past the limit it asks to be replaced, which gives it back.
      parentPort.postMessage({ id, json, retire: await shouldRetire([json]) }, [json.buffer]);
      return;
    }
    if (task === "rule-repairs") {
      // A rule's other repair of stored Features' geometries (a dry run or an apply), one GEOS at a time like a chunk.
      const started = performance.now();
      const geos = await getGeos();
      const repairs = [];
      for (const text of geometries) {
        repairs.push(text === null ? null : otherRepairOf(JSON.parse(text), repair, geos, { digest: digest !== false }));
        if (geos.broken) break;
      }
      const busy = performance.now() - started;
      parentPort.postMessage({ id, repairs, busy, retire: await shouldRetire(geometries.filter((g) => g !== null)) });
      return;
    }
    if (task === "analyze") {
      const analyzed = analyzeGeometry(await getGeos(), JSON.parse(geometryText), opts);
      parentPort.postMessage({ id, analyzed, retire: await shouldRetire([]) });
      return;
    }
    if (task === "parse-check") {
      const text = rec.bytes ? decodeDeferred(rec.bytes).text : rec.text;
      let problem = null;
      try {
        parseJsonOrPython(text);
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
      parentPort.postMessage({ id, problem, retire: await shouldRetire([text]) });
      return;
    }
    if (task === "normalize-pulled") {
      // A page of broker messages (pulled-message.ts), one GEOS at a time like a chunk of envelopes.
      const results = [];
      const geos = await getGeos();
      for (const body of bodies) {
        results.push({ ...preparePulled([body], now, geos, settings, maxBodyBytes)[0], index: results.length });
        if (await geosBroken()) break;
      }
      const retire = await shouldRetire(bodies.map((b) => b.body));
      // The bodies of the messages not answered go back (moved) to be normalized on another thread.
      const unanswered = bodies.slice(results.length).map((b) => b.body);
      const moved = [...rowsAsBytes(results), ...new Set(unanswered.map((b) => b.buffer).filter((b) => b instanceof ArrayBuffer))];
      parentPort.postMessage({ id, pulled: results, unanswered, retire }, moved);
      return;
    }
    if (task === "gate-taps") {
      const gated = gateTaps(body, format, now, source, rules);
      parentPort.postMessage(
        { id, gated, retire: await shouldRetire([body]) },
        rowsAsBytes(gated.failing.map((f) => ({ ok: true, record: f.record }))),
      );
      return;
    }
    const results = await normalizeChunk(recs, now, settings, true);
    const retire = await shouldRetire(recs.map((r) => r.bytes ?? r.text));
    parentPort.postMessage({ id, results, retire }, rowsAsBytes(results));
  } catch (err) {
    if (err instanceof AppError) {
      // A refusal (no such record, a field): the request's answer, not a failure of this thread.
      const appError = { code: err.code, message: err.message, issues: err.issues, details: err.details };
      parentPort.postMessage({ id, appError, retire: await shouldRetire([]) });
      return;
    }
    parentPort.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err), retire: true });
  }
});
parentPort.postMessage({ ready: true });
