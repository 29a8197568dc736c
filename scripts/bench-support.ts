// Shared set-up for the benchmark scripts: a dedicated, migrated database on the resolved server and a
// production server started against it. Each benchmark drops its database at the end.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { closeDb, createDb, type Db } from "../lib/db/client";
import { applyMigrations } from "../lib/db/migrate";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { ensureBuild } from "./source-stamp";

export interface BenchDb {
  db: Db;
  url: string;
  embedded: boolean;
  /** drops the database now (a copy of millions of records is large), keeping the server; drop() does the rest */
  dropDatabase(): Promise<void>;
  drop(): Promise<void>;
}

/**
 * A fresh database named from `prefix`, migrated. With `template`, a file copy of that database (bench:ingest
 * `--into`: ingest into a table that already holds bench:list's millions); FILE_COPY, because the default
 * strategy would write the whole copy through the WAL.
 */
export async function benchDatabase(prefix: string, opts: { template?: string } = {}): Promise<BenchDb> {
  const handle = await resolveDatabase();
  const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
  // A restart of the server must not crash this process through an unhandled client error.
  admin.on("error", (e) => console.error(`[db] admin connection: ${e.message}`));
  await admin.connect();
  const name = `${prefix}_${Date.now().toString(36)}`;
  await admin.query(
    opts.template ? `CREATE DATABASE "${name}" TEMPLATE "${opts.template}" STRATEGY = FILE_COPY` : `CREATE DATABASE "${name}"`,
  );
  const url = new URL(handle.url);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  // Modules that use the process-wide database (auth) must see this one.
  process.env.DATABASE_URL = url.toString();
  const db = createDb(url.toString(), 20);
  let dropped = false;
  const dropDatabase = async () => {
    if (dropped) return;
    dropped = true;
    await db.pool.end().catch(() => {});
    // Modules that used the process-wide pool (above) hold idle connections: DROP … WITH (FORCE) would cut
    // them and the pool would log each as an error in the middle of the benchmark's figures.
    await closeDb().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  };
  return {
    db,
    url: url.toString(),
    embedded: handle.embedded,
    dropDatabase,
    drop: async () => {
      await dropDatabase();
      await admin.end();
      await handle.stop();
    },
  };
}

/** `next start` on `port` against `url`; builds first when there is no production build of the current sources. */
export async function startServer(url: string, port: number): Promise<ChildProcess> {
  const next = join(process.cwd(), "node_modules/next/dist/bin/next");
  const env = { ...process.env, DATABASE_URL: url, NODE_ENV: "production" as const, NEXT_TELEMETRY_DISABLED: "1", REDRIVE_WORKER: "0" };
  await ensureBuild({ env });
  // BENCH_SERVER_NODE_ARGS (space-separated) go to the server's node alone: `--cpu-prof --cpu-prof-dir=…` profiles it
  // under the benchmark's load without profiling the benchmark too (Node refuses --cpu-prof in NODE_OPTIONS).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, next, "start", "-p", String(port)], { stdio: ["ignore", "ignore", "inherit"], env });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 300));
  }
  child.kill();
  throw new Error("server did not become healthy within 60 s");
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en");
}
