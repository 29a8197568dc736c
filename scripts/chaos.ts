// `npm run test:chaos`: the full crash-safety run. 10,000 records through the built-in ledger (paced, then
// unpaced), then 10,000 through the HTTP sink (a test receiver failing 30% of requests and hanging on some), each with 3 worker
// processes SIGKILLed at random moments (≥ 20 kills, each restarted) and PostgreSQL restarted once, on a
// dedicated embedded PostgreSQL in a temp dir. Exit status 1 when any invariant fails.
//   --records N   (default 10000)   --kills N (default 24)   --rate N (default 150)   --only ledger|unpaced|http
// The rate sets the run's length (10,000 at 150/s ≈ 70 s), and so how long a worker lives between kills.
// REDRIVE_KEEP_CHAOS=1 keeps the temp dir (database and workers.log) for a post-mortem.
import { parseArgs } from "node:util";
import { ChaosCluster, runChaos, type ChaosReport } from "../tests/replay/chaos";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "10000" },
    kills: { type: "string", default: "24" },
    rate: { type: "string", default: "150" },
    only: { type: "string" },
    seed: { type: "string", default: "1" },
  },
});
const records = Number(values.records);
const kills = Number(values.kills);
const rate = Number(values.rate);
const seed = Number(values.seed);
const log = (m: string) => console.error(`[chaos] ${m}`);

const cluster = await ChaosCluster.start(log);
const reports: ChaosReport[] = [];
try {
  // The unpaced ledger run drains a page per transaction (lib/replay/engine/locked-page.ts): no leases, so nothing is swept.
  const runs = [
    { name: "ledger", sink: "ledger", rate, killEveryMs: undefined },
    { name: "unpaced", sink: "ledger", rate: 1_000_000, killEveryMs: 150 },
    { name: "http", sink: "http", rate, killEveryMs: undefined },
  ] as const;
  for (const run of runs) {
    if (values.only && values.only !== run.name) continue;
    const report = await runChaos(cluster, {
      records,
      sink: run.sink,
      rate: run.rate,
      workers: 3,
      kills,
      seed: seed + reports.length,
      log,
      name: run.name,
      ...(run.killEveryMs ? { killEveryMs: run.killEveryMs } : {}),
    });
    reports.push(report);
    log(
      `${run.name}: ${report.problems.length === 0 ? "OK" : "FAILED"} in ${report.seconds.toFixed(1)} s — ${report.kills} kills, ` +
        `${report.itemsSwept} items swept from killed workers, ${report.pgRestarts} PostgreSQL restart, items ${JSON.stringify(report.items)}, keys settled ${report.keysSettled}` +
        (report.http
          ? `, ${report.http.requests} requests (${report.http.failedByServer} failed by the receiver), ` +
            `${report.http.duplicates} resends of a key: ${report.http.duplicatesOfUnacknowledged} after no acknowledgement, ` +
            `${report.http.duplicatesNearTimeout} after an answer at the timeout, ` +
            `${report.http.duplicatesAfterCrash} after a crash lost the acknowledgement`
          : ""),
    );
    for (const p of report.problems) log(`  problem: ${p}`);
  }
} finally {
  await cluster.close();
}
console.log(JSON.stringify(reports, null, 2));
process.exit(reports.every((r) => r.problems.length === 0) ? 0 : 1);
