import { resolveDatabase } from "../../lib/db/resolve";
import { applyMigrations } from "../../lib/db/migrate";
const t0 = Date.now();
const h = await resolveDatabase((m) => { if (!m.includes("LOG")) console.log("[pg]", m.slice(0, 200)); });
console.log("up", h.url, h.owned, Date.now() - t0, "ms");
console.log("applied", await applyMigrations(h.url), Date.now() - t0, "ms");
if (process.argv[2] === "hang") { console.log("hanging", process.pid); setInterval(() => {}, 1000); } else { await h.stop(); console.log("stopped"); }
