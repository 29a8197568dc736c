import pg from "pg";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
await admin.connect();
const { rows } = await admin.query<{ datname: string; size: string }>("SELECT datname, pg_size_pretty(pg_database_size(datname)) AS size FROM pg_database ORDER BY 1");
console.log(rows);
for (const r of rows) if (/^redrive_bench_(ingest|.*archive_move)/.test(r.datname) && process.argv.includes("--drop")) { await admin.query(`DROP DATABASE "${r.datname}" WITH (FORCE)`); console.log("dropped", r.datname); }
await admin.end(); await handle.stop(); process.exit(0);
