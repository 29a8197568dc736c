import { spawn, type ChildProcess } from "node:child_process";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { createWriteStream, type WriteStream } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { verifyAuditTrail } from "../../lib/audit/verify";
import { createDb } from "../../lib/db/client";
import { startEmbeddedPostgres, type EmbeddedHandle } from "../../lib/db/embedded";
import { applyMigrations } from "../../lib/db/migrate";
import { freePort } from "../support/free-port";
import { seededRandom } from "../support/seeded-random";
import { usesLockedPages } from "../../lib/replay/engine/locked-page";
import { bulkApproved, itemCounts, runningBatch, type TestUsers } from "./fixtures";
import { startSinkServer, type SinkServer } from "./sink-server";

// The sink server listens on loopback, which a sink may reach only where an admin allowed it
// (lib/net/outbound-guard.ts): this process creates the batch, the workers it spawns inherit the setting.
process.env.REDRIVE_OUTBOUND_ALLOW_PRIVATE = "127.0.0.1";

// The crash-safety proof: a dedicated embedded PostgreSQL in a temp dir, `workers` real worker processes
// (`node bin/redrive.mjs worker`), SIGKILLed at random moments and restarted, PostgreSQL itself restarted
// once, while a batch drains through the built-in ledger or the HTTP sink. Then the books must balance.

export interface ChaosOptions {
  records: number;
  sink: "ledger" | "http";
  rate: number;
  workers: number;
  kills: number;
  seed: number;
  /** worker lease (default 3000 ms): how long a killed worker's items wait before they are swept */
  leaseMs?: number;
  log: (msg: string) => void;
  timeoutMs?: number;
  /** mean time between kills (default: spread over 80% of the time the rate implies) */
  killEveryMs?: number;
  /** tells this run's records apart from another run's with the same sink */
  name?: string;
}

export interface ChaosReport {
  sink: "ledger" | "http";
  records: number;
  seconds: number;
  kills: number;
  pgRestarts: number;
  items: Record<string, number>;
  /** items returned to the queue after their worker was killed (sum of lease losses) */
  itemsSwept: number;
  /** the batch drains a page per transaction (locked-page.ts): a kill rolls a page back instead of leaving it leased */
  lockedPages: boolean;
  /** ledger run: keys in the ledger for this batch / applied items; http run: keys the receiver applied */
  keysSettled: number;
  problems: string[];
  http?: {
    requests: number;
    failedByServer: number;
    duplicates: number;
    duplicatesOfUnacknowledged: number;
    /** resent after an answer so slow (≥ timeout − slack from arrival) that the worker may have timed out first */
    duplicatesNearTimeout: number;
    duplicatesAfterCrash: number;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The HTTP sink's timeout in the chaos run (the receiver hangs some requests past it). Long enough that a
 * worker starved of CPU for a moment (a loaded CI machine) still reads an answer that did arrive: a timeout
 * on an answered request looks, to the receiver, like a resend of an acknowledged key.
 */
const HTTP_TIMEOUT_MS = 1500;
/**
 * The receiver cannot see when the worker sent a request, only when it arrived: an answer written within this
 * much of the timeout (counted from arrival) may have reached a worker that had already given up on it.
 */
const TIMEOUT_SLACK_MS = 200;

export class ChaosCluster {
  private workers: (ChildProcess | null)[] = [];
  private log!: WriteStream;
  /** a run found problems: keep the database and the workers' log for a post-mortem */
  keep = false;
  /** when each SIGKILL happened, and to which process */
  kills: { at: number; pid: number }[] = [];
  restartTimes: number[] = [];
  private constructor(
    private root: string,
    private port: number,
    public pg: EmbeddedHandle,
    private say: (m: string) => void,
  ) {}

  static async start(say: (m: string) => void): Promise<ChaosCluster> {
    const root = await mkdtemp(join(tmpdir(), "redrive-chaos-"));
    await chmod(root, 0o755); // PostgreSQL runs as the `postgres` user when we are root
    const port = await freePort();
    const handle = await startEmbeddedPostgres({ dataRoot: root, port });
    await applyMigrations(handle.url);
    const c = new ChaosCluster(root, port, handle, say);
    c.log = createWriteStream(join(root, "workers.log"));
    say(`embedded PostgreSQL on port ${port}, data in ${root}`);
    return c;
  }

  get url(): string {
    return this.pg.url;
  }

  spawnWorker(i: number, args: string[]): void {
    const child = spawn(process.execPath, ["bin/redrive.mjs", "worker", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: this.url },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes("] started (")) this.ready.add(child);
      this.log.write(`[w${i}] ${text}`);
    });
    this.workers[i] = child;
  }

  private ready = new Set<ChildProcess>();

  /** SIGKILLs a random worker that is up and working (one still starting holds nothing) and starts another. */
  killRandom(random: () => number, args: string[]): boolean {
    const up = this.workers.flatMap((w, i) => (w && this.ready.has(w) ? [i] : []));
    if (up.length === 0) return false;
    const i = up[Math.floor(random() * up.length)] as number;
    const victim = this.workers[i];
    victim?.kill("SIGKILL");
    this.kills.push({ at: Date.now(), pid: victim?.pid ?? -1 });
    this.spawnWorker(i, args);
    return true;
  }

  async restartPostgres(): Promise<void> {
    this.restartTimes.push(Date.now());
    await this.pg.stop();
    await sleep(300);
    this.pg = await startEmbeddedPostgres({ dataRoot: this.root, port: this.port });
    this.restartTimes.push(Date.now());
  }

  async stopWorkers(): Promise<void> {
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (!w || w.exitCode !== null) return resolve();
            w.once("exit", () => resolve());
            w.kill("SIGTERM");
          }),
      ),
    );
    this.workers = [];
  }

  async close(): Promise<void> {
    await this.stopWorkers();
    await this.pg.stop().catch(() => undefined);
    await new Promise((r) => this.log.end(r));
    if (!process.env.REDRIVE_KEEP_CHAOS && !this.keep) await rm(this.root, { recursive: true, force: true });
    else this.say(`kept ${this.root}`);
  }
}

async function makeUsers(pool: pg.Pool): Promise<TestUsers> {
  await pool.query(`INSERT INTO "user" (id, name, email, role) VALUES ('chaos-a', 'A', 'a@chaos.local', 'supervisor'),
    ('chaos-b', 'B', 'b@chaos.local', 'supervisor') ON CONFLICT DO NOTHING`);
  return {
    creator: { scope: UNSCOPED, userId: "chaos-a", email: "a@chaos.local", role: "supervisor" },
    approver: { scope: UNSCOPED, userId: "chaos-b", email: "b@chaos.local", role: "supervisor" },
  };
}

/** One chaos run on `cluster`: its own records (prefix by sink), its own batch. */
export async function runChaos(cluster: ChaosCluster, o: ChaosOptions): Promise<ChaosReport> {
  const random = seededRandom(o.seed);
  const started = Date.now();
  const db = createDb(cluster.url, 4);
  const problems: string[] = [];
  let server: SinkServer | null = null;
  const prefix = `chaos-${o.name ?? o.sink}`;
  const lockedPages = usesLockedPages({
    sink: { mode: o.sink === "ledger" ? "in-transaction" : "remote" },
    ratePerSecond: o.rate,
    pageSize: 100,
  });
  try {
    const users = await makeUsers(db.pool);
    await bulkApproved(db.pool, { count: Math.ceil(o.records / 2), prefix: `${prefix}-afc`, kind: "afc", devices: 500, source: prefix });
    await bulkApproved(db.pool, { count: Math.floor(o.records / 2), prefix: `${prefix}-geo`, kind: "spatial", source: prefix });
    if (o.sink === "http") server = await startSinkServer({ failRate: 0.3, hangRate: 0.02, hangMs: 2 * HTTP_TIMEOUT_MS, seed: o.seed });
    const sink = server ? { type: "http", url: server.url, timeoutMs: HTTP_TIMEOUT_MS, concurrency: 8 } : { type: "ledger" };
    const batchId = await runningBatch(db, users, {
      filter: { source: [prefix] },
      sink,
      ratePerSecond: o.rate,
      pageSize: 100,
      maxAttempts: 25,
      failureThreshold: 0.9,
    });
    o.log(`${o.sink}: batch ${batchId} with ${o.records} records at ${o.rate}/s, ${o.workers} workers`);
    const args = ["--lease-ms", String(o.leaseMs ?? 3000), "--concurrency", "2", "--backoff-base-ms", "100", "--backoff-max-ms", "2000"];
    for (let i = 0; i < o.workers; i++) cluster.spawnWorker(i, args);

    const expectedMs = (o.records / o.rate) * 1000;
    const killEvery = o.killEveryMs ?? (expectedMs * 0.8) / o.kills;
    let kills = 0;
    let restarted = false;
    // Generous: the machines these run on are shared, and a loaded database drains far slower than the rate.
    const deadline = Date.now() + (o.timeoutMs ?? expectedMs * 8 + 120_000);
    for (;;) {
      await sleep(killEvery * (0.5 + random()));
      const counts = await itemCounts(db.pool, batchId).catch(() => null);
      if (counts) {
        const open = (counts.pending ?? 0) + (counts.running ?? 0) + (counts.retry ?? 0);
        if (open === 0) break;
        if (!restarted && open < o.records * 0.6) {
          o.log(`${o.sink}: restarting PostgreSQL (${o.records - open} finished)`);
          await cluster.restartPostgres();
          restarted = true;
          continue;
        }
      }
      if (kills < o.kills && cluster.killRandom(random, args)) kills++;
      if (Date.now() > deadline) {
        problems.push(`not drained within ${Math.round((deadline - started) / 1000)} s: ${JSON.stringify(counts)}`);
        break;
      }
    }
    await cluster.stopWorkers();
    const items = await itemCounts(db.pool, batchId);
    const open = (items.pending ?? 0) + (items.running ?? 0) + (items.retry ?? 0);
    if (open > 0) problems.push(`${open} items not finalized`);
    if ((items.applied ?? 0) + (items.deduped ?? 0) !== o.records)
      problems.push(`applied + deduped = ${(items.applied ?? 0) + (items.deduped ?? 0)}, expected ${o.records}`);
    if (kills < o.kills) problems.push(`only ${kills} kills happened before the batch drained`);
    if (!restarted) problems.push("PostgreSQL was not restarted before the batch drained");

    const ledger = await db.pool.query<{ keys: number; replay: number; missing: number }>(
      `SELECT count(*)::int AS keys, count(*) FILTER (WHERE l.batch_id = $1)::int AS replay,
         (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = $1
            AND NOT EXISTS (SELECT 1 FROM ledger_entry x WHERE x.idempotency_key = i.idempotency_key)) AS missing
       FROM ledger_entry l WHERE l.idempotency_key LIKE $2`,
      [batchId, `${prefix}-%`],
    );
    const l = ledger.rows[0] ?? { keys: 0, replay: 0, missing: 0 };
    if (l.missing > 0) problems.push(`${l.missing} keys missing from the ledger`);
    if (o.sink === "ledger" && l.replay !== (items.applied ?? 0)) problems.push(`ledger rows ${l.replay} ≠ applied items ${items.applied}`);
    const records = await db.pool.query(
      `SELECT count(*)::int AS n FROM dead_letter WHERE idempotency_key LIKE $1 AND status <> 'replayed'`,
      [`${prefix}-%`],
    );
    if (records.rows[0].n > 0) problems.push(`${records.rows[0].n} records not marked replayed`);
    const lost = await db.pool.query(`SELECT coalesce(sum(lease_losses), 0)::int AS n FROM replay_item WHERE batch_id = $1`, [batchId]);
    const itemsSwept = lost.rows[0].n as number;
    if (o.kills > 0 && itemsSwept === 0 && !lockedPages) problems.push("no kill hit a worker holding items (nothing was swept)");
    if (lockedPages && itemsSwept > 0) problems.push(`${itemsSwept} lease losses in a batch drained by locked pages`);
    const audit = await verifyAuditTrail(db.pool);
    if (!audit.ok) problems.push(`audit chain broken at ${audit.broken.id}: ${audit.broken.problem}`);

    const report: ChaosReport = {
      sink: o.sink,
      records: o.records,
      seconds: (Date.now() - started) / 1000,
      kills,
      pgRestarts: restarted ? 1 : 0,
      items,
      itemsSwept,
      lockedPages,
      keysSettled: o.sink === "ledger" ? l.replay : (server?.applied.size ?? 0),
      problems,
    };
    if (server) {
      const before = problems.length;
      report.http = checkDeliveries(server, o.records, cluster, problems, started);
      // For the post-mortem: what the engine knows of each key that was resent without an excuse.
      const resent = problems.slice(before).flatMap((p) => /^key (\S+) was resent/.exec(p)?.[1] ?? []);
      if (resent.length) {
        const { rows } = await db.pool.query(
          `SELECT idempotency_key, status, attempts, lease_losses, last_error FROM replay_item WHERE batch_id = $1 AND idempotency_key = ANY($2)`,
          [batchId, resent],
        );
        for (const r of rows) problems.push(`  engine's view of ${r.idempotency_key}: ${JSON.stringify(r)}`);
      }
    }
    if (problems.length) cluster.keep = true;
    return report;
  } finally {
    await server?.close();
    await db.pool.end();
  }
}

/**
 * Every key reached the receiver; a key that arrived more than once did so only because an earlier request
 * was never acknowledged (server failure, timeout) or because the worker that got the acknowledgement died —
 * or lost the database — before it could record it. The sender is told by its User-Agent, which names the
 * worker (`host:pid:…`): a SIGKILL of another worker does not excuse a resend.
 */
function checkDeliveries(
  server: SinkServer,
  records: number,
  cluster: ChaosCluster,
  problems: string[],
  started: number,
): NonNullable<ChaosReport["http"]> {
  if (server.applied.size !== records) problems.push(`receiver applied ${server.applied.size} keys, expected ${records}`);
  const byKey = new Map<string, typeof server.deliveries>();
  for (const d of server.deliveries) byKey.set(d.key, [...(byKey.get(d.key) ?? []), d]);
  const pidOf = (sender: string) => Number(/\([^:]*:(\d+):/.exec(sender)?.[1] ?? -1);
  const out = {
    requests: server.deliveries.length,
    failedByServer: 0,
    duplicates: 0,
    duplicatesOfUnacknowledged: 0,
    duplicatesNearTimeout: 0,
    duplicatesAfterCrash: 0,
  };
  for (const list of byKey.values()) {
    list.sort((a, b) => a.arrivedAt - b.arrivedAt);
    out.failedByServer += list.filter((d) => d.action === "failed").length;
    const successes = list.filter((d) => d.action === "applied" || d.action === "replayed");
    if (successes.length <= 1) continue;
    for (let i = 0; i < list.length - 1; i++) {
      const d = list[i] as (typeof list)[number];
      if (d.action === "failed") continue;
      out.duplicates++;
      const next = list[i + 1] as (typeof list)[number];
      if (!d.completed) out.duplicatesOfUnacknowledged++;
      else if (d.doneAt - d.arrivedAt >= HTTP_TIMEOUT_MS - TIMEOUT_SLACK_MS) out.duplicatesNearTimeout++;
      // The acknowledgement reached a worker that died (or lost the database) before recording it.
      else if (
        cluster.kills.some((k) => k.pid === pidOf(d.sender) && k.at >= d.doneAt - 100 && k.at <= next.arrivedAt) ||
        cluster.restartTimes.some((t) => t >= d.doneAt - 100 && t <= next.arrivedAt)
      )
        out.duplicatesAfterCrash++;
      else {
        const at = (t: number) => `${((t - started) / 1000).toFixed(2)} s`;
        problems.push(
          `key ${d.key} was resent although its earlier request (from ${d.sender}, arrived ${at(d.arrivedAt)}, ` +
            `answered ${d.status} at ${at(d.doneAt)}) was acknowledged and that worker did not crash; resent by ${next.sender} at ${at(next.arrivedAt)}` +
            ` (restarts at ${cluster.restartTimes.map(at).join(", ")})`,
        );
      }
    }
  }
  return out;
}
