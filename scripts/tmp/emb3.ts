import { applyMigrations } from "../../lib/db/migrate";
console.log(await applyMigrations("postgresql://postgres@127.0.0.1:5432/redrive_dev"));
const hs = (process as unknown as {_getActiveHandles(): any[]})._getActiveHandles();
console.log(hs.map((x: any) => [x?.constructor?.name, x?.remotePort, x?._idleTimeout]));
