import { createMigration } from "../../lib/db/migrate";
console.log(await createMigration("postgresql://postgres@127.0.0.1:5432/redrive_dev", "init", new Date("2026-11-29T20:53:09Z")));
process.exit(0);
