import "server-only";
import pg from "pg";
import type { Actor } from "../audit/actor";
import type { RecordScope } from "../scope/record-scope";
import { getDb } from "../db/client";
import { withSessionSetup } from "../db/session";
import { sharedNormalizePool } from "../dead-letters/ingest/normalize-pool";
import { heavyDetailJsonFrom } from "../dead-letters/query/heavy-detail-read";
import { repairPreview } from "../dead-letters/triage/repair-preview";
import { purgeQuarantined } from "../dead-letters/triage/release-purge";
import type { QuarantineBody } from "../dead-letters/contract/quarantine";
import type { RepairMethod, RepairPolicy } from "../vocabulary/record";
import { revealField } from "../forensics/reveal";
import type { ListFilter } from "../dead-letters/filters";
import { auditedExport } from "../forensics/export/audited";
import type { ExportOrder } from "../forensics/export/stream";
import type { ExportFormat } from "../forensics/forensics-schemas";
import { maskAnswer } from "../masking/answer";
import type { MaskRules } from "../masking/rules";

// Every request that reads a stored record's payload or envelope whole, or runs GEOS on it, does it
// here, on an ingest thread (normalize-pool.ts) when there are any: a stored 1,000,000-vertex polygon is 12 MB of
// envelope and as much payload, and receiving, parsing, repairing and serializing it on the thread that answers
// requests held health for seconds. A task reads the row itself on its own connection, so those bytes never
// reach that thread; its answer comes back as UTF-8 JSON. tests/integration/heavy-input.test.ts finds every
// route that reaches a payload reader and checks it keeps health answering against such a record.

/** Runs `fn` with a connection of its own (the calling thread's, not the server's pool), set up as the server's are. */
async function withClient<T>(databaseUrl: string, fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool(withSessionSetup({ connectionString: databaseUrl, max: 1 }));
  try {
    return await fn(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

export const OFF_THREAD_READS = {
  /** GET /api/dead-letters/{id} of a heavy record: the whole detail, masked by `rules` (null: in clear) */
  detail: (databaseUrl: string, a: { id: string; rules: MaskRules | null }) => heavyDetailJsonFrom(databaseUrl, a.id, a.rules),
  /** GET /api/dead-letters/{id}/repair-preview: GEOS on the stored payload, and the repaired geometry */
  repairPreview: (databaseUrl: string, a: { id: string; method?: RepairMethod; policy?: RepairPolicy; rules: MaskRules }) =>
    withClient(databaseUrl, async (pool) => {
      const chosen = { ...(a.method ? { method: a.method } : {}), ...(a.policy ? { policy: a.policy } : {}) };
      return JSON.stringify(maskAnswer(await repairPreview(pool, a.id, chosen), a.rules));
    }),
  /** POST /api/dead-letters/{id}/reveal: one field of the payload or the envelope (parsed whole), audited */
  reveal: (
    databaseUrl: string,
    a: { id: string; path: string; scope: RecordScope; actor: Actor; requestId: string; now: Date; rules: MaskRules },
  ) =>
    withClient(databaseUrl, async (pool) =>
      JSON.stringify(
        await revealField(pool, a.scope, a.id, a.path, { actor: a.actor, requestId: a.requestId, now: a.now, rules: a.rules }),
      ),
    ),
  /** POST /api/quarantine/purge: each purged record's payload and envelope, masked, into its audit event */
  purge: (
    databaseUrl: string,
    a: { body: QuarantineBody; scope: RecordScope; actor: Actor; requestId: string; now: Date; rules: MaskRules },
  ) =>
    withClient(databaseUrl, async (pool) =>
      JSON.stringify(
        await purgeQuarantined(pool, a.body, { actor: a.actor, scope: a.scope, requestId: a.requestId, now: a.now, rules: a.rules }),
      ),
    ),
} satisfies Record<string, (databaseUrl: string, args: never) => Promise<string>>;

/**
 * The streams of stored records, run the same way: on a thread, on connections of its own, read a chunk at a time
 * by the response (NormalizePool.openStream), so neither a heavy record's bytes nor their masking and formatting
 * ever reach the thread that answers requests.
 */
export const OFF_THREAD_STREAMS = {
  /** GET /api/export: the cursor, formatting and masking, and the export's audit event when it ends */
  export: (
    databaseUrl: string,
    a: {
      format: ExportFormat;
      filter: ListFilter;
      scope: RecordScope;
      mask: MaskRules | null;
      order?: ExportOrder;
      excel?: boolean;
      actor: Actor;
      requestId: string;
      now: Date;
    },
  ): ReadableStream<Uint8Array> => {
    // One connection for the cursor's transaction, one for the audit event written as the stream ends.
    const pool = new pg.Pool(withSessionSetup({ connectionString: databaseUrl, max: 2 }));
    const { actor, requestId, now, ...args } = a;
    const { stream, audited } = auditedExport(pool, args, { actor, requestId, now });
    void audited.then(() => pool.end()).catch(() => {});
    return stream;
  },
} satisfies Record<string, (databaseUrl: string, args: never) => ReadableStream<Uint8Array>>;

/** Where the threads find OFF_THREAD_READS (normalize-worker.mjs imports it by this project-relative path). */
const THIS_MODULE = "lib/api/off-thread-reads.ts";

export type OffThreadRead = keyof typeof OFF_THREAD_READS;
export type OffThreadArgs<K extends OffThreadRead> = Parameters<(typeof OFF_THREAD_READS)[K]>[1];

/** Runs one of OFF_THREAD_READS by name (normalize-worker.mjs "read"; in this thread when there are no threads). */
export function runOffThreadRead<K extends OffThreadRead>(name: K, databaseUrl: string, args: OffThreadArgs<K>): Promise<string> {
  const task = OFF_THREAD_READS[name] as (databaseUrl: string, args: OffThreadArgs<K>) => Promise<string>;
  return task(databaseUrl, args);
}

export type OffThreadStreamName = keyof typeof OFF_THREAD_STREAMS;
export type OffThreadStreamArgs<K extends OffThreadStreamName> = Parameters<(typeof OFF_THREAD_STREAMS)[K]>[1];

/** Opens one of OFF_THREAD_STREAMS by name (normalize-worker.mjs "stream-pull"; in this thread when there are no threads). */
export function openOffThreadStream<K extends OffThreadStreamName>(
  name: K,
  databaseUrl: string,
  args: OffThreadStreamArgs<K>,
): ReadableStream<Uint8Array> {
  const open = OFF_THREAD_STREAMS[name] as (databaseUrl: string, args: OffThreadStreamArgs<K>) => ReadableStream<Uint8Array>;
  return open(databaseUrl, args);
}

/**
 * One of OFF_THREAD_STREAMS run on an ingest thread when there are any, as the body of a response: the thread
 * builds one chunk ahead of what the client has read, no more, and a client that goes away cancels the stream there.
 */
export function streamOffThread<K extends OffThreadStreamName>(name: K, args: OffThreadStreamArgs<K>): ReadableStream<Uint8Array> {
  const { url } = getDb();
  const threads = sharedNormalizePool();
  if (!threads) return openOffThreadStream(name, url, args);
  const remote = threads.openStream(THIS_MODULE, name, url, args);
  // One chunk asked for ahead: the thread builds the next while this one is written to the client.
  let ahead: Promise<Uint8Array | null> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await (ahead ?? remote.pull());
        ahead = chunk === null ? null : remote.pull();
        ahead?.catch(() => {}); // surfaced by the next read
        if (chunk === null) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: (reason) => remote.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * The answer of one of OFF_THREAD_READS, built on an ingest thread when there are any, as a JSON Response (which
 * defineRoute sends as it is: masking is the task's, with the rules it is given).
 */
export async function answerOffThread<K extends OffThreadRead>(name: K, args: OffThreadArgs<K>): Promise<Response> {
  const { url } = getDb();
  const threads = sharedNormalizePool();
  const json = threads
    ? await threads.read(THIS_MODULE, name, url, args)
    : new TextEncoder().encode(await runOffThreadRead(name, url, args));
  return new Response(json, { headers: { "content-type": "application/json" } });
}
