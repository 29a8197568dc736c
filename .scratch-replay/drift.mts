import { migrationDrift } from "../lib/db/migrate";
console.log(JSON.stringify(await migrationDrift("postgresql://postgres@127.0.0.1:5432/redrive_dev")));
