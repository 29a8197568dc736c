import { createMigration, applyMigrations, migrationDrift } from "../../lib/db/migrate";
const url = "postgresql://postgres@127.0.0.1:5432/redrive_dev";
console.log("created", await createMigration(url, "init", new Date()));
console.log("applied", await applyMigrations(url));
console.log("drift", JSON.stringify(await migrationDrift(url)));
process.exit(0);
