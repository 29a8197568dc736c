// `npm run test:e2e`: fresh, migrated, seeded databases, a production build that is up to date with the sources,
// then Playwright against the production server (scripts/serve.ts) in Debian's Chromium. Extra arguments go to
// Playwright.
//
// The whole suite runs as two shards side by side (E2E_SHARDS, default 2; 1 when arguments pick specs): each its
// own database, seeded alike, and its own server on its own port, since specs change what they find there. One
// shard's specs left a third of the 2 cores idle (waiting on the server, the maps' frames, the workers specs spawn);
// two finish the suite in about two thirds of the time.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import pg from "pg";
import { createDb } from "../lib/db/client";
import { applyMigrations } from "../lib/db/migrate";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { seedDemo } from "../lib/seed/seed";
import { ensureBuild } from "./source-stamp";

const root = process.cwd();
const say = (m: string) => console.log(`[e2e] ${m}`);
const args = process.argv.slice(2);
const shards = Number(process.env.E2E_SHARDS ?? (args.length === 0 ? 2 : 1));
if (!Number.isInteger(shards) || shards < 1 || shards > 8) {
  console.error(`[e2e] E2E_SHARDS: expected a whole number from 1 to 8, got ${JSON.stringify(process.env.E2E_SHARDS)}`);
  process.exit(2);
}
const basePort = Number(process.env.E2E_PORT ?? 3100);

/** Runs a command; with `prefix`, each line of its output is printed behind it, so shards' lines stay apart. */
function run(cmd: string, cmdArgs: string[], env: NodeJS.ProcessEnv, prefix?: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { stdio: prefix ? ["ignore", "pipe", "pipe"] : "inherit", env });
    if (prefix) {
      for (const [stream, out] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ] as const) {
        if (stream) createInterface({ input: stream }).on("line", (line) => out.write(`${prefix} ${line}\n`));
      }
    }
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

// The seed's audit events and the server's (playwright.config.ts) must be MAC'd with one key.
process.env.REDRIVE_AUDIT_KEY ??= "e2e-audit-key-0123456789abcdefghijklmnopqrstuvwxyz";

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
// A restart of the server must not crash this process through an unhandled client error.
admin.on("error", (e) => console.error(`[db] admin connection: ${e.message}`));
await admin.connect();
const stamp = Date.now().toString(36);
const names = Array.from({ length: shards }, (_, i) => `redrive_e2e_${stamp}${shards > 1 ? `_${i + 1}` : ""}`);
let code = 1;
try {
  const urls: string[] = [];
  for (const name of names) {
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(handle.url);
    url.pathname = `/${name}`;
    const dbUrl = url.toString();
    await applyMigrations(dbUrl);
    process.env.DATABASE_URL = dbUrl; // auth helpers use the process-wide database
    const db = createDb(dbUrl, 4);
    await seedDemo(db, { count: 400, seed: 7, log: urls.length === 0 ? say : () => {} });
    await db.pool.end();
    urls.push(dbUrl);
  }

  await ensureBuild({ env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, force: process.env.E2E_REBUILD === "1", log: say });
  if (shards > 1) say(`${shards} shards side by side, each with its own database and server (ports ${basePort}–${basePort + shards - 1})`);
  const codes = await Promise.all(
    urls.map((dbUrl, i) =>
      run(
        process.execPath,
        [join(root, "node_modules/@playwright/test/cli.js"), "test", ...(shards > 1 ? [`--shard=${i + 1}/${shards}`] : []), ...args],
        {
          ...process.env,
          E2E_DATABASE_URL: dbUrl,
          E2E_PORT: String(basePort + i),
          E2E_SHARD: shards > 1 ? String(i + 1) : "",
          REDRIVE_DB_MODE: handle.embedded ? "embedded" : "external",
        },
        shards > 1 ? `[${i + 1}/${shards}]` : undefined,
      ),
    ),
  );
  code = codes.find((c) => c !== 0) ?? 0;
} catch (err) {
  console.error(err);
  code = code || 1;
} finally {
  for (const name of names) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  await admin.end();
  await handle.stop();
}
process.exit(code);
