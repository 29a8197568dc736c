import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChaosCluster, runChaos } from "../replay/chaos";

// The small chaos run that `npm test` includes (the full one is `npm run test:chaos`: 10,000 records, ≥ 20
// kills): real worker processes SIGKILLed and restarted, PostgreSQL restarted once, through both sinks.

const log = (m: string) => process.stderr.write(`[chaos] ${m}\n`);
let cluster: ChaosCluster;

beforeAll(async () => {
  cluster = await ChaosCluster.start(log);
}, 120_000);

afterAll(async () => {
  await cluster?.close();
});

describe("crash safety (small)", () => {
  it("built-in ledger: every item finalized, each key in the ledger exactly once, despite kills and a database restart", async () => {
    const report = await runChaos(cluster, { records: 600, sink: "ledger", rate: 200, workers: 3, kills: 4, seed: 11, leaseMs: 3000, log });
    log(JSON.stringify(report));
    expect(report.problems).toEqual([]);
    expect(report.items).toEqual({ applied: 600 });
  }, 120_000);

  it("built-in ledger unpaced (a page per transaction): every key applied once, despite kills and a database restart", async () => {
    const report = await runChaos(cluster, {
      records: 6000,
      sink: "ledger",
      rate: 1_000_000,
      workers: 3,
      kills: 4,
      killEveryMs: 150,
      seed: 13,
      leaseMs: 3000,
      name: "unpaced",
      log,
    });
    log(JSON.stringify(report));
    expect(report.lockedPages).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.items).toEqual({ applied: 6000 });
  }, 120_000);

  it("HTTP sink failing 30%: every key arrives; a key arrives twice only when unacknowledged or after a crash", async () => {
    const report = await runChaos(cluster, { records: 400, sink: "http", rate: 200, workers: 3, kills: 4, seed: 12, leaseMs: 3000, log });
    log(JSON.stringify(report));
    expect(report.problems).toEqual([]);
    expect((report.items.applied ?? 0) + (report.items.deduped ?? 0)).toBe(400);
  }, 120_000);
});
