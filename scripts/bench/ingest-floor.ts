// bench:ingest's floor (#32): what ingest's unavoidable work costs in the same run, on the same inputs.
//  - normalize: parse, schema, CRS, GEOS validity and repair, hashing and row serialization of every envelope, on
//    the worker threads ingest uses (NormalizePool, as many threads as the server starts), no I/O: the file is
//    read and split into lines before the clock starts;
//  - copy: the rows ingest stored (the records, their failure history and the audit events it appended), taken
//    out of ingest's database and COPYed, one COPY per table in one transaction, into a freshly migrated one (the
//    same indexes and triggers, empty, as ingest found them).
// Both need the same two cores, so together they make 1 / (1/normalize + 1/copy).
import { readFile } from "node:fs/promises";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { copyIn } from "../../lib/db/copy";
import { DEFAULT_SOURCE_SETTINGS, type Normalized } from "../../lib/dead-letters/ingest/normalize";
import { defaultIngestThreads, NormalizePool } from "../../lib/dead-letters/ingest/normalize-pool";
import type { RecordText } from "../../lib/dead-letters/ingest/split";
import { benchDatabase } from "../bench-support";
import { processCpu } from "./cpu";

export interface FloorPart {
  seconds: number;
  perSecond: number;
  /** CPU seconds the part spent (null where /proc cannot be read) */
  cpu: number | null;
}

/** The COPY part's CPU: PostgreSQL's backend, and this process sending the rows (as the server sends them). */
export interface CopyPart extends FloorPart {
  rows: number;
  backendCpu: number | null;
  clientCpu: number;
}

const CHUNK = 500;

/** Normalizes every line of `file` on the ingest threads; records per second. */
export async function normalizeFloor(file: string): Promise<FloorPart & { threads: number; ok: number }> {
  const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.length > 0);
  const recs: RecordText[] = lines.map((text, index) => ({ index, text }));
  const size = defaultIngestThreads();
  const pool = NormalizePool.create(size);
  if (!pool) throw new Error("ingest floor: no normalization threads (normalize-worker.mjs not found)");
  const settings = { sources: new Map(), defaults: DEFAULT_SOURCE_SETTINGS };
  try {
    // Threads load tsx and GEOS on start (~1 s): a server has them warm before its first request. One small
    // chunk per thread at once (each goes to the least busy thread), so every thread is up before the clock starts.
    await Promise.all(Array.from({ length: size }, () => pool.normalize(recs.slice(0, 10), new Date(), settings)));
    const started = performance.now();
    // This process's CPU over the run: the threads' normalization, and this thread handing them chunks and
    // receiving their rows (as the server's main thread does). Nothing else runs here meanwhile.
    const cpuBefore = process.cpuUsage();
    // As ingest does: a chunk per thread in flight and one waiting, so no thread idles.
    const inFlight: Promise<Normalized[]>[] = [];
    let ok = 0;
    for (let from = 0; from < recs.length; from += CHUNK) {
      inFlight.push(pool.normalize(recs.slice(from, from + CHUNK), new Date(), settings));
      while (inFlight.length > size) ok += (await (inFlight.shift() as Promise<Normalized[]>)).filter((n) => n.ok).length;
    }
    for (const p of inFlight) ok += (await p).filter((n) => n.ok).length;
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpuBefore);
    return { threads: size, ok, seconds, perSecond: recs.length / seconds, cpu: (used.user + used.system) / 1e6 };
  } finally {
    await pool.close();
  }
}

/** The tables ingest writes, in the order their rows can go back in (failure history points at records). */
const TABLES = [
  { table: "dead_letter", where: "id > $records", order: "id" },
  { table: "failure_attempt", where: "dead_letter_id > $records", order: "dead_letter_id, attempt" },
  { table: "audit_event", where: "id > $audit", order: "id" },
];

/** The ids the database held before ingest ran: its rows are those above them. */
export interface IngestedAfter {
  records: string;
  audit: string;
}

/** A table's columns that take values (a generated column is computed by the COPY into the target, as by ingest). */
async function writableColumns(client: pg.Client, table: string): Promise<string> {
  const { rows } = await client.query<{ cols: string }>(
    `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'`,
    [table],
  );
  const cols = rows[0]?.cols;
  if (!cols) throw new Error(`ingest floor: no columns found for ${table}`);
  return cols;
}

async function copyOut(client: pg.Client, sql: string): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  const stream = client.query(copyTo(sql));
  for await (const c of stream) chunks.push(c as Buffer);
  return chunks;
}

/**
 * COPYs the rows ingest stored in `sourceUrl` (those after `after`) into a fresh database, or into a copy of
 * `template` (the database ingest started from, for `--into`); `records` is what the rate counts (the envelopes
 * sent, as the API's rate does). `sourceRead` runs once the rows are read (a copy of millions of records can go
 * before the next is made).
 */
export async function copyFloor(
  sourceUrl: string,
  after: IngestedAfter,
  records: number,
  opts: { template?: string; sourceRead?: () => Promise<void> } = {},
): Promise<CopyPart> {
  const { template } = opts;
  const source = new pg.Client({ connectionString: sourceUrl });
  await source.connect();
  const data: { table: string; cols: string; chunks: Buffer[] }[] = [];
  try {
    for (const { table, where, order } of TABLES) {
      const cols = await writableColumns(source, table);
      const bound = where.replace("$records", `'${BigInt(after.records)}'`).replace("$audit", `'${BigInt(after.audit)}'`);
      const sql = `COPY (SELECT ${cols} FROM ${table} WHERE ${bound} ORDER BY ${order}) TO STDOUT`;
      data.push({ table, cols, chunks: await copyOut(source, sql) });
    }
  } finally {
    await source.end();
  }
  await opts.sourceRead?.();
  const target = await benchDatabase("redrive_bench_ingest_copy", { template });
  if (template) await prewarm(target.db.pool);
  const client = await target.db.pool.connect();
  try {
    await client.query("CHECKPOINT").catch(() => undefined);
    const { rows: me } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const backend = me[0]?.pid ?? 0;
    let rows = 0;
    const cpuBefore = processCpu(backend);
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    await client.query("BEGIN");
    for (const { table, cols, chunks } of data) rows += await copyIn(client, `COPY ${table} (${cols}) FROM STDIN`, chunks);
    await client.query("COMMIT");
    const seconds = (performance.now() - started) / 1000;
    const sender = process.cpuUsage(clientBefore);
    const clientCpu = (sender.user + sender.system) / 1e6;
    const cpuAfter = processCpu(backend);
    const backendCpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    // The client's part counts: writing the rows to the socket (loopback TCP runs on the sender's CPU) is work the
    // server does too, and the wall-clock COPY rate includes it.
    return { rows, seconds, perSecond: records / seconds, cpu: backendCpu === null ? null : backendCpu + clientCpu, backendCpu, clientCpu };
  } finally {
    client.release();
    await target.drop();
  }
}

/** The floor both parts make on the same cores, and the ratio of a measured rate to it. */
export function combinedFloor(normalize: number, copy: number): number {
  return 1 / (1 / normalize + 1 / copy);
}

/**
 * A copy of a large database starts with its files partly outside the OS cache; a server that has run a while has
 * dead_letter's indexes in memory (or not, if they outgrew it: what `--into` measures). They are read once first,
 * as bench:list does; prints how much that was.
 */
export async function prewarm(pool: pg.Pool): Promise<number> {
  await pool.query("CREATE EXTENSION IF NOT EXISTS pg_prewarm");
  const { rows } = await pool.query<{ blocks: string }>(
    `SELECT coalesce(sum(pg_prewarm(indexrelid, 'read')), 0)::text AS blocks FROM pg_index WHERE indrelid = 'dead_letter'::regclass`,
  );
  return Number(rows[0]?.blocks ?? 0) * 8192;
}
