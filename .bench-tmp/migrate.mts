import { applyMigrations } from "../lib/db/migrate";
for (const db of process.argv.slice(2)) console.log(db, await applyMigrations(`postgresql://postgres@127.0.0.1:5432/${db}`));
process.exit(0);
