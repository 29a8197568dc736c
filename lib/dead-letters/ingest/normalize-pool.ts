import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, Worker } from "node:worker_threads";
import type { AnalyzeOptions, AnalyzeResult } from "../../spatial/analyze";
import { AppError, type ErrorCode, type FieldIssue } from "../../errors/app-error";
import type { Normalized, NormalizeSettings } from "./normalize";
import type { PreparedPulled, PulledBody } from "./pulled-message";
import type { ArrivalRules, OtherRepairFacts } from "../store/arrival-facts";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { GatedTaps } from "./tap-gate";
import { DEFER_DECODE_BYTES, encodeShared, type RecordText } from "./split";

// Normalization (JSON parse, schema checks, hashing, and for spatial records GEOS validation and repair: the
// bulk of ingest's CPU) on worker threads, so the main thread only reads the body and stores (bench:ingest
// compares the two). Chunks go to the least busy thread and come
// back as promises, which the pipeline awaits in input order; a thread handles its chunks one at a time.
//
// One pool per process, its threads started with the first chunk and kept (a thread takes ~1 s to load tsx and
// GEOS); an idle thread is unref'd, so it never keeps a finished CLI run alive.

interface Pending {
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
}

/**
 * Geometries per rule-repairs task: ~30 ms of GEOS on small geometries, so a page splits into many and a thread that
 * runs slower (sharing its core with PostgreSQL) holds back no more than one; a message costs ~0.1 ms.
 */
const RULE_CHUNK = 100;

/**
 * Tasks a thread holds from the rule queue: the one it runs and the next few, which it starts without a round
 * trip, so a main thread held up a while (parsing a page on a loaded machine) does not leave it waiting.
 */
const QUEUED_PER_THREAD = 4;

/** Below this many messages a pulled page goes to one thread whole: the hand-over would cost more than it saves. */
const PULLED_CHUNK_MIN = 25;

/** What a thread answers (normalize-worker.mjs): a chunk's results, or a body's parse problem. */
interface Reply {
  id?: number;
  /** the thread has loaded its modules (sent once, without an id) */
  ready?: boolean;
  results?: Normalized[];
  pulled?: PreparedPulled[];
  gated?: GatedTaps;
  /** the bodies of the messages a thread stopped before (its GEOS aborted), moved back */
  unanswered?: Uint8Array[];
  problem?: string | null;
  error?: string;
  analyzed?: AnalyzeResult;
  /** a rule's other repair of each geometry sent (rule-repairs), null where the payload is not a Feature */
  repairs?: (OtherRepairFacts | null)[];
  /** how long the thread worked on a rule-repairs task, ms (its wall clock: on a shared core, also its waits) */
  busy?: number;
  /** a heavy record's detail answer, UTF-8 JSON (its buffer transferred, not copied) */
  json?: Uint8Array<ArrayBuffer>;
  /** an off-thread stream's next chunk (transferred), or done: the stream has ended */
  chunk?: Uint8Array<ArrayBuffer>;
  done?: boolean;
  /** what a read refused (not found, a field): thrown again here as the same AppError */
  appError?: { code: ErrorCode; message: string; issues: FieldIssue[]; details?: Record<string, unknown> };
  /** the thread asks to be replaced: its GEOS aborted, or a heavy record grew its heaps */
  retire?: boolean;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** tasks sent and not answered */
  load: number;
  failed: Error | null;
  /** takes no new task; terminated once it has answered the ones it holds */
  retiring: boolean;
  /** resolves once the thread has loaded its modules (or failed) */
  loaded: Promise<void>;
}

/**
 * Threads for ingest by default: one per core. The main thread mostly waits for PostgreSQL, and spatial
 * normalization (GEOS MakeValid) is the bottleneck of a spatial import, which a second thread speeds up; AFC
 * imports are bound by PostgreSQL and run the same with one or two. At most MAX_DEFAULT_THREADS unless REDRIVE_INGEST_THREADS says otherwise.
 */
export function defaultIngestThreads(): number {
  const fromEnv = process.env.REDRIVE_INGEST_THREADS;
  if (fromEnv !== undefined && fromEnv !== "") {
    const n = Number(fromEnv);
    return Number.isInteger(n) && n >= 0 ? n : 0;
  }
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, availableParallelism()));
}

/** Each thread holds its own GEOS and module graph (~100 MB): a big machine does not start one per core. */
const MAX_DEFAULT_THREADS = 8;

/**
 * Where the worker script is: next to this module when it runs from source (tsx: the CLI, tests); from the
 * project directory when this module was bundled (the Next.js server), where import.meta.url points into .next.
 * Null when neither holds the TypeScript sources the worker loads: ingest then normalizes on the main thread.
 */
function workerScript(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(fileURLToPath(new URL("./normalize-worker.mjs", import.meta.url)));
  } catch {
    // not a file: URL (bundled)
  }
  candidates.push(join(process.cwd(), "lib/dead-letters/ingest/normalize-worker.mjs"));
  return candidates.find((f) => existsSync(f) && existsSync(join(f, "../normalize.ts"))) ?? null;
}

export class NormalizePool {
  private threads: Thread[] = [];
  /** Tasks waiting for a thread with room (fewer than QUEUED_PER_THREAD tasks owed), first in first out. */
  private ruleQueue: { message: Record<string, unknown>; resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private nextId = 1;
  private retiredCount = 0;

  /**
   * Milliseconds the threads spent on rule-repairs tasks, summed over them: against a dry run's wall clock times
   * the threads, how much of it they had work (bench:rules). A diagnostic.
   */
  get ruleBusyMs(): number {
    return this.ruleBusy;
  }

  private ruleBusy = 0;

  /** Threads replaced so far because they asked to be (see retire): for tests and diagnostics. */
  get retired(): number {
    return this.retiredCount;
  }

  /** Threads start with the first chunk: a process that only ever sees single envelopes never starts one. */
  private constructor(
    private readonly script: string,
    readonly size: number,
  ) {}

  static create(size: number): NormalizePool | null {
    if (size < 1) return null;
    const script = workerScript();
    return script ? new NormalizePool(script, size) : null;
  }

  private spawn(): Thread {
    const worker = new Worker(this.script);
    worker.unref();
    let loaded = () => {};
    const thread: Thread = {
      worker,
      pending: new Map(),
      load: 0,
      failed: null,
      retiring: false,
      loaded: new Promise<void>((resolve) => (loaded = resolve)),
    };
    worker.on("message", (m: Reply) => {
      if (m.ready) loaded();
      if (m.id === undefined) return;
      const p = thread.pending.get(m.id);
      if (!p) return;
      thread.pending.delete(m.id);
      if (m.busy !== undefined) this.ruleBusy += m.busy;
      if (--thread.load === 0) worker.unref();
      if (m.retire || thread.retiring) this.retire(thread);
      if (m.appError) p.reject(new AppError(m.appError.code, m.appError.message, m.appError));
      else if (m.error !== undefined) p.reject(new Error(`ingest normalization failed: ${m.error}`));
      else p.resolve(m);
      // Any answer (a queued task's or another's) gives that thread room for the queue's next task.
      if (this.ruleQueue.length > 0) this.drainQueue();
    });
    const fail = (err: Error) => {
      loaded();
      thread.failed = err;
      for (const p of thread.pending.values()) p.reject(err);
      thread.pending.clear();
      thread.load = 0;
      // The queue's next tasks go to the thread that replaces this one.
      if (this.ruleQueue.length > 0) queueMicrotask(() => this.drainQueue());
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (!thread.retiring) fail(new Error(`ingest normalization thread exited with code ${code}`));
    });
    return thread;
  }

  /**
   * Takes a thread out of service and ends it once it owes nothing: its wasm heap never shrinks and its V8 heap
   * keeps what a 10 MB record grew it to, so ending the thread is what gives that memory back (and the only way
   * to a working GEOS after an abort). A replacement starts at once, so the pool stays warm.
   */
  private retire(thread: Thread): void {
    if (!thread.retiring) {
      thread.retiring = true;
      this.retiredCount++;
      this.threads = this.threads.filter((t) => t !== thread);
      this.warm();
    }
    if (thread.load === 0) void thread.worker.terminate();
  }

  /**
   * Starts the threads now rather than with the first chunk (a thread takes ~1 s to load tsx and GEOS): a
   * server warms them at boot (instrumentation.ts), so a producer's first bulk request does not wait for them.
   */
  warm(): void {
    while (this.threads.length < this.size) this.threads.push(this.spawn());
  }

  /** Starts the threads (warm) and resolves once each has loaded: for a measurement that leaves start-up out. */
  async warmed(): Promise<void> {
    this.warm();
    await Promise.all(this.threads.map((t) => t.loaded));
  }

  /** The least busy thread in service; a thread that died (its tasks were rejected) is replaced first. */
  private pick(): Thread | undefined {
    this.warm();
    this.threads = this.threads.map((t) => (t.failed ? this.spawn() : t));
    return [...this.threads].sort((a, b) => a.load - b.load)[0];
  }

  private send(message: Record<string, unknown>, thread = this.pick(), transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (!thread) return Promise.reject(new Error("no ingest normalization thread is running"));
    if (thread.failed) return Promise.reject(thread.failed);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      // Referenced while it owes an answer (the process must wait for it), unreferenced when idle.
      if (thread.load++ === 0) thread.worker.ref();
      thread.worker.postMessage({ ...message, id }, transfer);
    });
  }

  /**
   * Normalizes a chunk on the least busy thread; results in the chunk's order. A thread that died (its chunks
   * were rejected, failing their ingest) is replaced first, so one bad chunk does not take the pool down. A
   * thread whose GEOS aborted answers for the records up to the one that aborted it (stored as poison with the
   * reason); the rest go to another thread.
   */
  async normalize(recs: RecordText[], now: Date, settings: NormalizeSettings): Promise<Normalized[]> {
    // A Map of plain objects, a Date and plain limits: all survive structured cloning as they are.
    const plain = { sources: settings.sources, defaults: settings.defaults, limits: settings.limits, rules: settings.rules };
    const sent: RecordText[] = [];
    for (const rec of recs) sent.push(await asSendable(rec));
    const { results = [] } = await this.send({ task: "normalize", recs: sent, now, settings: plain });
    if (results.length >= recs.length || results.length === 0) return results;
    return [...results, ...(await this.normalize(recs.slice(results.length), now, settings))];
  }

  /**
   * A page of broker messages normalized and prepared on a thread (pulled-message.ts preparePulled): their bodies
   * cross as copies in buffers of their own, transferred, so a large body costs this thread a memcpy and no parse.
   * A thread whose GEOS aborted answers for the messages before the one that aborted it; the rest go to another.
   */
  async normalizePulled(bodies: PulledBody[], now: Date, settings: NormalizeSettings, maxBodyBytes: number): Promise<PreparedPulled[]> {
    // A page is split over the threads, so its normalization runs on every core rather than one.
    const share = Math.max(PULLED_CHUNK_MIN, Math.ceil(bodies.length / this.size));
    if (bodies.length <= share) return this.normalizePulledChunk(bodies, now, settings, maxBodyBytes);
    const parts: Promise<PreparedPulled[]>[] = [];
    for (let start = 0; start < bodies.length; start += share) {
      const offset = start;
      parts.push(
        this.normalizePulledChunk(bodies.slice(start, start + share), now, settings, maxBodyBytes).then((done) =>
          done.map((r) => ({ ...r, index: r.index + offset })),
        ),
      );
    }
    return (await Promise.all(parts)).flat();
  }

  private async normalizePulledChunk(
    bodies: PulledBody[],
    now: Date,
    settings: NormalizeSettings,
    maxBodyBytes: number,
  ): Promise<PreparedPulled[]> {
    const plain = { sources: settings.sources, defaults: settings.defaults, limits: settings.limits, rules: settings.rules };
    const moved: ArrayBuffer[] = [];
    const sent = bodies.map((b) => ({ ...b, body: movable(b.body, moved) }));
    const { pulled = [], unanswered = [] } = await this.send(
      { task: "normalize-pulled", bodies: sent, now, settings: plain, maxBodyBytes },
      undefined,
      moved,
    );
    if (pulled.length >= bodies.length || pulled.length === 0) return pulled;
    const left = bodies.slice(pulled.length).map((b, i) => ({
      ...b,
      body: unanswered[i] ? Buffer.from(unanswered[i].buffer, unanswered[i].byteOffset, unanswered[i].byteLength) : b.body,
    }));
    const rest = await this.normalizePulledChunk(left, now, settings, maxBodyBytes);
    return [...pulled, ...rest.map((r) => ({ ...r, index: r.index + pulled.length }))];
  }

  /**
   * A rule's other repair (rule-facts.ts otherRepairOf: GEOS, and — with `digest` — the digest of what it delivers)
   * of each Feature's geometry, given as JSON text (null: the payload is not a Feature); results in their order.
   * Only the rule's fields of each analysis come back, not its geometries. The geometries go out in small chunks through a queue that hands a thread its
   * next chunk as it answers one (ruleQueue): a job keeps a page or two queued ahead, and every thread stays busy
   * whichever of them runs slower (a fixed split per page left the faster one idle at each page's end).
   */
  async ruleRepairs(
    geometries: (string | null)[],
    repair: { method: RepairMethod; policy: RepairPolicy },
    opts: { digest?: boolean } = {},
  ): Promise<(OtherRepairFacts | null)[]> {
    const parts: Promise<(OtherRepairFacts | null)[]>[] = [];
    for (let start = 0; start < geometries.length; start += RULE_CHUNK)
      parts.push(this.ruleRepairsChunk(geometries.slice(start, start + RULE_CHUNK), repair, opts.digest !== false));
    return (await Promise.all(parts)).flat();
  }

  private async ruleRepairsChunk(
    geometries: (string | null)[],
    repair: { method: RepairMethod; policy: RepairPolicy },
    digest: boolean,
  ): Promise<(OtherRepairFacts | null)[]> {
    const { repairs = [] } = await this.queued({ task: "rule-repairs", geometries, repair, digest });
    // A thread whose GEOS aborted answers up to the geometry that aborted it: the rest go to another.
    if (repairs.length >= geometries.length || repairs.length === 0) return geometries.map((_, i) => repairs[i] ?? null);
    return [...repairs, ...(await this.ruleRepairsChunk(geometries.slice(repairs.length), repair, digest))];
  }

  /** `message` sent once a thread has room: a thread holds its current task and the next, never a backlog. */
  private queued(message: Record<string, unknown>): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.ruleQueue.push({ message, resolve, reject });
      this.drainQueue();
    });
  }

  private drainQueue(): void {
    while (this.ruleQueue.length > 0) {
      const thread = this.pick();
      if (!thread) {
        for (const t of this.ruleQueue.splice(0)) t.reject(new Error("no ingest normalization thread is running"));
        return;
      }
      if (thread.load >= QUEUED_PER_THREAD) return;
      const task = this.ruleQueue.shift()!;
      this.send(task.message, thread).then(task.resolve, task.reject);
    }
  }

  /** A capture request's body through the AFC gate on a thread (tap-gate.ts gateTaps); its refusal thrown here. */
  async gateTaps(
    body: Uint8Array,
    format: "json" | "ndjson",
    now: Date,
    source: string | undefined,
    rules?: ArrivalRules,
  ): Promise<GatedTaps> {
    const moved: ArrayBuffer[] = [];
    const { gated } = await this.send({ task: "gate-taps", body: movable(body, moved), format, now, source, rules }, undefined, moved);
    if (!gated) throw new Error("the gate thread answered without a result");
    return gated;
  }

  /** analyzeGeometry on a thread (an analyst's edit: GEOS's validity and repair of up to the vertex limit). */
  async analyze(geometry: unknown, opts: AnalyzeOptions): Promise<AnalyzeResult> {
    // As text: the structured clone of a large ring's many little arrays holds this thread many times longer
    // than its JSON (copying a string is a memcpy; the thread parses it).
    const { analyzed } = await this.send({ task: "analyze", geometryText: JSON.stringify(geometry ?? null), opts });
    if (!analyzed) throw new Error("the analysis thread answered without a result");
    return analyzed;
  }

  /**
   * One of the reads of a stored record (`module`'s runOffThreadRead, project-relative: lib/api/off-thread-reads.ts)
   * on a thread, its answer as UTF-8 JSON: for a
   * heavy record, receiving its 24 MB of text, parsing, masking and serializing it held this thread for seconds.
   * An AppError the task threw (not found, a field refused) is thrown here as one.
   */
  async read(module: string, name: string, databaseUrl: string, args: unknown): Promise<Uint8Array<ArrayBuffer>> {
    const { json } = await this.send({ task: "read", module, name, databaseUrl, args });
    if (!json) throw new Error(`the thread answered ${name} without a result`);
    return json;
  }

  /**
   * One of the streams of stored records (`module`'s openOffThreadStream, project-relative) run on a thread, read
   * a chunk at a time: `pull` asks the thread for its next chunk (null once the stream has ended), so the thread
   * never runs ahead of the reader, and `cancel` cancels it there. The stream opens on the thread with the first
   * pull or the cancel, and stays on that thread: the thread is held (not retired) until the stream ends.
   */
  openStream(module: string, name: string, databaseUrl: string, args: unknown): OffThreadStream {
    const streamId = this.nextId++;
    const open = { module, name, databaseUrl, args };
    let thread: Thread | undefined;
    let closed = false;
    const hold = (): Thread => {
      if (thread) return thread;
      const t = this.pick();
      if (!t) throw new Error("no ingest normalization thread is running");
      if (t.load++ === 0) t.worker.ref();
      return (thread = t);
    };
    const release = () => {
      if (!thread || closed) return;
      closed = true;
      if (thread.failed) return; // its load was cleared when it died
      if (--thread.load === 0) {
        thread.worker.unref();
        if (thread.retiring) void thread.worker.terminate();
      }
    };
    return {
      pull: async () => {
        if (closed) return null;
        const first = !thread;
        const t = hold();
        try {
          const m = await this.send({ task: "stream-pull", streamId, ...(first ? open : {}) }, t);
          if (m.done || !m.chunk) {
            release();
            return null;
          }
          return m.chunk;
        } catch (err) {
          release();
          throw err;
        }
      },
      cancel: async (reason) => {
        if (closed) return;
        const first = !thread;
        const t = hold();
        const why = reason === undefined ? undefined : reason instanceof Error ? reason.message : String(reason);
        try {
          await this.send({ task: "stream-cancel", streamId, reason: why, ...(first ? open : {}) }, t);
        } finally {
          release();
        }
      },
    };
  }

  /**
   * Why `rec` is not one JSON value (null when it is), found on a thread: parsing a 12 MB body here held the
   * event loop for seconds. Also `rec` as it is best sent again (a long text as shared bytes, encoded once).
   */
  async parseProblem(rec: RecordText): Promise<{ problem: string | null; rec: RecordText }> {
    const sendable = await asSendable(rec);
    const { problem = null } = await this.send({ task: "parse-check", rec: sendable });
    return { problem, rec: sendable };
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/** A stream run on a thread (NormalizePool.openStream). */
export interface OffThreadStream {
  /** the next chunk, null once the stream has ended; rejects when it failed there */
  pull(): Promise<Uint8Array<ArrayBuffer> | null>;
  /** cancels the stream on its thread (`reason`, as an Error's message, is what its end records) */
  cancel(reason?: unknown): Promise<void>;
}

/**
 * Bytes as they cross to a thread: moved (their buffer transferred, `moved` collects it) when they are the whole
 * of a buffer of their own, as a large Buffer is, which costs nothing whatever their size and leaves `bytes`
 * empty; copied otherwise (a slice of a shared or pooled buffer, which must not be taken from its other users).
 */
function movable(bytes: Uint8Array, moved: ArrayBuffer[]): Uint8Array {
  const { buffer } = bytes;
  const whole = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  if (whole && bytes.byteLength >= MOVE_FROM && !moved.includes(buffer)) {
    moved.push(buffer);
    return bytes;
  }
  return new Uint8Array(bytes);
}

/** Below this a copy costs less than a transfer's bookkeeping. */
const MOVE_FROM = 64 * 1024;

/**
 * A record as it crosses to a thread: a long text as UTF-8 in shared memory. postMessage copies a string at
 * ~30 ns a character on the sending thread (a 12 MB record: 0.4 s of the event loop); shared bytes cross free,
 * and the encoding here yields between slices.
 */
async function asSendable(rec: RecordText): Promise<RecordText> {
  if (rec.bytes || rec.error !== undefined || rec.text.length < DEFER_DECODE_BYTES) return rec;
  return { index: rec.index, text: "", bytes: await encodeShared(rec.text) };
}

// On globalThis, not in a module variable: the Next server bundles instrumentation.ts (which warms the pool)
// apart from the route handlers (which use it), and each bundle has its own copy of this module.
const SHARED = Symbol.for("redrive.ingest.normalizePool");
const slot = globalThis as { [SHARED]?: NormalizePool | null };

/** The process's pool (REDRIVE_INGEST_THREADS threads, default one per core), or null when threads are off. */
export function sharedNormalizePool(): NormalizePool | null {
  // A task running on one of the threads (an off-thread read) does its work where it is: no pool of its own.
  if (!isMainThread) return null;
  if (slot[SHARED] === undefined) {
    const wanted = defaultIngestThreads();
    const pool = NormalizePool.create(wanted);
    slot[SHARED] = pool;
    if (pool) console.error(`[ingest] normalizing on ${pool.size} worker thread(s)`);
    else if (wanted > 0)
      console.error("[ingest] worker threads unavailable (normalize-worker.mjs not found): normalizing on the main thread");
  }
  return slot[SHARED] ?? null;
}
