// Preloaded into the replay workers by `npm run bench:replay -- --sql-timing` (node --import): times every
// statement the process sends through node-postgres (wall time from send to answer, so lock waits and the round
// trip count), grouped by the statement's first words, and writes the totals to
// $BENCH_SQL_TIMING_DIR/<pid>.json when the process exits. Measures the engine as it is, without touching it.
// Not counted: statements sent with pool.query (pg.Pool passes a callback to the client: the claim, the rate
// limiter's reservation, heartbeats) and COPY streams (the audit events' insert); their time shows as the
// drain's wall time not accounted for.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const pg = require("pg");
const dir = process.env.BENCH_SQL_TIMING_DIR;
const totals = new Map();

/** A statement's name: its text with whitespace folded, up to the first FROM/SET/VALUES/WHERE, 90 characters at most. */
function nameOf(text) {
  const flat = text
    .replace(/--[^\n]*/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.slice(0, 90);
}

const original = pg.Client.prototype.query;
pg.Client.prototype.query = function timedQuery(config, values, callback) {
  const text = typeof config === "string" ? config : config && typeof config.text === "string" ? config.text : null;
  const result = original.call(this, config, values, callback);
  if (text === null || !result || typeof result.then !== "function") return result;
  const started = process.hrtime.bigint();
  const done = () => {
    const key = nameOf(text);
    const t = totals.get(key) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += Number(process.hrtime.bigint() - started) / 1e6;
    totals.set(key, t);
  };
  result.then(done, done);
  return result;
};

process.on("exit", () => {
  if (!dir) return;
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(Object.fromEntries(totals)));
});
