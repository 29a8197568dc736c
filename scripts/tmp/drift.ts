import { migrationDrift } from "../../lib/db/migrate";
import { resolveDatabase } from "../../lib/db/resolve";
const h = await resolveDatabase();
const t = Date.now();
console.log(JSON.stringify(await migrationDrift(h.url)), Date.now() - t);
await h.stop();
process.exit(0);
