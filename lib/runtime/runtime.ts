import "server-only";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../db/client";
import { startMaintenance } from "../ops/maintenance";
import { startWorker, type WorkerOptions } from "../replay/engine/worker";
import { startPullers } from "../sources/pullers";
import { servePullRequests } from "../sources/pull-requests";
import { SourceTurns } from "../sources/source-turns";

// The background work of one process, started in one place: replay lanes (lib/replay/engine/worker.ts), the
// continuous drain of broker sources (lib/sources/pullers.ts), the Pull now requests (lib/sources/pull-requests.ts)
// and the housekeeping loop (lib/ops/maintenance.ts). `redrive worker` and `npm start`'s launcher run all of them;
// a web server (scripts/serve.ts) runs only the Pull now requests, so a request written on any server is
// answered even where no worker runs. The heavy part of every pull (parsing, GEOS) runs on the ingest threads
// (lib/dead-letters/ingest/normalize-pool.ts), so a server's event loop stays free for requests.

export interface RuntimeOptions {
  db: Db;
  log: (msg: string) => void;
  signal?: AbortSignal;
  /** the name this process holds leases under (default host:pid:random) */
  id?: string;
  /** replay lanes and their settings; false: none */
  replay?: Omit<WorkerOptions, "db" | "log" | "signal" | "workerId"> | false;
  /** drain the enabled broker sources continuously (default true) */
  pullers?: boolean;
  /** answer Pull now requests (default true) */
  pullRequests?: boolean;
  /** the housekeeping loop; false: none */
  maintenance?: { retentionDays: number; webhookUrl: string | null } | false;
  /** how long a source's lease lasts without renewal (default 30 s): a dead holder's pull resumes after it */
  leaseMs?: number;
  /** the idle poll of the pullers and of the pull requests beside NOTIFY (default 1 s) */
  pollMs?: number;
}

export interface RuntimeHandle {
  id: string;
  /** stops everything; resolves when all of it has stopped */
  stop(): Promise<void>;
  done: Promise<void>;
}

export function startRuntime(opts: RuntimeOptions): RuntimeHandle {
  const id = opts.id ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const stopping = new AbortController();
  const pool = opts.db.pool;
  const leaseMs = opts.leaseMs ?? (opts.replay ? opts.replay.leaseMs : undefined) ?? 30_000;
  const turns = new SourceTurns();
  const log = opts.log;
  const replay = opts.replay === false ? null : startWorker({ ...opts.replay, db: opts.db, log, workerId: id, leaseMs });
  const pullers =
    opts.pullers === false
      ? null
      : startPullers({
          pool,
          signal: stopping.signal,
          log: (m) => log(`[sources ${id}] ${m}`),
          workerId: id,
          leaseMs,
          turns,
          ...poll(opts),
        });
  const requests =
    opts.pullRequests === false
      ? null
      : servePullRequests({
          pool,
          holder: id,
          signal: stopping.signal,
          log: (m) => log(`[sources ${id}] ${m}`),
          turns,
          leaseMs,
          ...poll(opts),
        });
  const maintenance = opts.maintenance
    ? startMaintenance({ pool, signal: stopping.signal, ...opts.maintenance, log: (m) => log(`maintenance: ${m}`) })
    : null;
  const done = Promise.all([replay?.done, pullers?.done, requests, maintenance?.done]).then(() => undefined);
  const stop = async () => {
    stopping.abort();
    await Promise.all([replay?.stop(), done]);
  };
  opts.signal?.addEventListener("abort", () => void stop(), { once: true });
  if (opts.signal?.aborted) void stop();
  return { id, stop, done };
}

const poll = (opts: RuntimeOptions) => (opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {});
