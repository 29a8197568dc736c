import { resolveDatabase } from "../../lib/db/resolve";
const h = await resolveDatabase();
console.log("up");
await h.stop(); console.log("stopped", (process as unknown as {_getActiveHandles(): unknown[]})._getActiveHandles().map((x: any) => x?.constructor?.name));
