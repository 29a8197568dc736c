// The dashboard's and ingest's side of a maintenance run (bench:migration, bench:retention): a loop reading list
// pages as the triage view does, a steady ingest of AFC taps through the real pipeline, and a watch on pg_locks
// for the longest time any session of the database waited for a lock. Each reports its worst case.
import pg from "pg";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { ingest } from "../../lib/dead-letters/ingest/ingest";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { generateAfc } from "../../lib/seed/generate-afc";
import { Rng } from "../../lib/seed/rng";
import { DEMO_BASE, SPAN_MS } from "../../lib/seed/seed-chunks";

export interface LoadReport {
  list: { runs: number; p50: number; p99: number; worst: number };
  ingest: { batches: number; records: number; p50: number; worst: number };
  lockWait: { worstMs: number; who: string };
}

const LIST_FILTERS = [{}, { status: "pending" }, { kind: "afc", status: "pending" }, { class: "poison" }];
/**
 * A page read every 25 ms at most: 40 a second, more than a room of analysts asks for. Back to back the loop read
 * about 400 a second, a core of a two-core machine, and the backfill it watched ran on what was left.
 */
const LIST_EVERY_MS = 25;
const INGEST_BATCH = 20;
const INGEST_EVERY_MS = 200;

export function startLoad(pool: pg.Pool): { stop(): Promise<LoadReport>; sofar(): LoadReport } {
  let running = true;
  const listTimes: number[] = [];
  const ingestTimes: number[] = [];
  let records = 0;
  const lock = { worstMs: 0, who: "" };

  const listLoop = (async () => {
    for (let i = 0; running; i++) {
      const t = performance.now();
      await listDeadLetters(pool, UNSCOPED, ListQuerySchema.parse(LIST_FILTERS[i % LIST_FILTERS.length]));
      const took = performance.now() - t;
      listTimes.push(took);
      await new Promise((r) => setTimeout(r, Math.max(0, LIST_EVERY_MS - took)));
    }
  })();

  const ingestLoop = (async () => {
    const rng = new Rng(Date.now() % 2_147_483_647);
    const actor = { id: null, email: "bench-load", role: "system" };
    for (let n = 0; running; n++) {
      const t = performance.now();
      async function* batch() {
        for (let k = 0; k < INGEST_BATCH; k++) yield { index: k, text: generateAfc(rng, n * INGEST_BATCH + k, DEMO_BASE, SPAN_MS).text };
      }
      const ctx = { pool, actor, requestId: null, batchSize: INGEST_BATCH, threads: null };
      for await (const results of await ingest({ via: "records", records: batch() }, ctx)) records += results.length;
      const took = performance.now() - t;
      ingestTimes.push(took);
      await new Promise((r) => setTimeout(r, Math.max(0, INGEST_EVERY_MS - took)));
    }
  })();

  const lockLoop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ ms: number | null; who: string | null }>(
        `SELECT (extract(epoch FROM clock_timestamp() - l.waitstart) * 1000)::float8 AS ms,
                l.mode || ' on ' || coalesce(l.relation::regclass::text, l.locktype) || ': ' || left(a.query, 80) AS who
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE NOT l.granted AND l.waitstart IS NOT NULL AND a.datname = current_database()
         ORDER BY l.waitstart LIMIT 1`,
      );
      const w = rows[0];
      if (w?.ms != null && w.ms > lock.worstMs) {
        lock.worstMs = w.ms;
        lock.who = w.who ?? "";
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const sofar = (): LoadReport => {
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN;
    return {
      list: {
        runs: listTimes.length,
        p50: q(listTimes, 0.5),
        p99: q(listTimes, 0.99),
        worst: listTimes.reduce((a, b) => Math.max(a, b), 0),
      },
      ingest: { batches: ingestTimes.length, records, p50: q(ingestTimes, 0.5), worst: ingestTimes.reduce((a, b) => Math.max(a, b), 0) },
      lockWait: { ...lock },
    };
  };
  return {
    sofar,
    async stop() {
      running = false;
      await Promise.all([listLoop, ingestLoop, lockLoop]);
      return sofar();
    },
  };
}

export function describeLoad(label: string, r: LoadReport): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return [
    `${label}:`,
    `  list pages   ${r.list.runs} reads, p50 ${ms(r.list.p50)}, p99 ${ms(r.list.p99)}, worst ${ms(r.list.worst)}`,
    `  ingest       ${r.ingest.records} records in ${r.ingest.batches} batches of ${INGEST_BATCH}, p50 ${ms(r.ingest.p50)}, worst ${ms(r.ingest.worst)}`,
    `  lock waits   longest ${ms(r.lockWait.worstMs)}${r.lockWait.who ? ` (${r.lockWait.who})` : ""}`,
  ].join("\n");
}
