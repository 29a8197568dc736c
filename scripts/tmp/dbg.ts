import { MigrationPgAdapterFactory } from "../../lib/db/pg-adapter";
const f = new MigrationPgAdapterFactory("postgresql://postgres@127.0.0.1:5432/redrive_dev");
const a = await f.connect();
try {
  const r = await a.queryRaw({ sql: "select relkind from pg_class limit 1", args: [], argTypes: [] });
  console.log(r);
} catch (e) { console.log("ERR", e); }
await a.dispose();
