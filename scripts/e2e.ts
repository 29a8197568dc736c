// `npm run test:e2e`: a fresh, migrated, seeded database, a production build that is up to date with the
// sources, then Playwright against the production server (scripts/serve.ts) in Debian's Chromium. Extra arguments go to Playwright.
import { spawn } from "node:child_process";
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

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    spawn(cmd, args, { stdio: "inherit", env }).on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

// The seed's audit events and the server's (playwright.config.ts) must be MAC'd with one key.
process.env.REDRIVE_AUDIT_KEY ??= "e2e-audit-key-0123456789abcdefghijklmnopqrstuvwxyz";

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
// A restart of the server must not crash this process through an unhandled client error.
admin.on("error", (e) => console.error(`[db] admin connection: ${e.message}`));
await admin.connect();
const name = `redrive_e2e_${Date.now().toString(36)}`;
await admin.query(`CREATE DATABASE "${name}"`);
const url = new URL(handle.url);
url.pathname = `/${name}`;
const dbUrl = url.toString();
let code = 1;
try {
  await applyMigrations(dbUrl);
  process.env.DATABASE_URL = dbUrl; // auth helpers use the process-wide database
  const db = createDb(dbUrl, 4);
  await seedDemo(db, { count: 400, seed: 7, log: say });
  await db.pool.end();

  await ensureBuild({ env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, force: process.env.E2E_REBUILD === "1", log: say });
  code = await run(process.execPath, [join(root, "node_modules/@playwright/test/cli.js"), "test", ...process.argv.slice(2)], {
    ...process.env,
    E2E_DATABASE_URL: dbUrl,
    REDRIVE_DB_MODE: handle.embedded ? "embedded" : "external",
  });
} catch (err) {
  console.error(err);
  code = code || 1;
} finally {
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  await admin.end();
  await handle.stop();
}
process.exit(code);
