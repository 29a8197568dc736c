// Throughput of the AFC ingest path on a typical record: parseLossless + normalizeAfcRecord, and each alone.
// Run: npx tsx scripts/afc-bench.ts  (pure CPU, one core, no database). The API needs >= 10,000 records/s
// end to end, so this path should stay several times above that.
import { normalizeAfcRecord } from "@/lib/afc/normalize-record";
import { parseLossless } from "@/lib/json/lossless";

const TYPICAL = JSON.stringify({
  kind: "afc",
  source: "gates-east",
  raw_payload: {
    event_id: "3f2b8c1e-9d4a-4e6b-8f7c-2a1d5e9b0c43",
    device_id: "gate-07",
    fare_amount_cents: "275",
    tap_timestamp: "2024-05-01T08:30:00.123Z",
    battery_pct: 87,
  },
  retry_count: 0,
});
// A producer record that already carries everything (no gate run, no hash computed).
const FULL = JSON.stringify({
  ...JSON.parse(TYPICAL),
  failure_reason: "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key",
  failure_class: "transient_schema",
  event_hash: "a".repeat(64),
  first_seen_utc: "2024-05-01T08:30:01Z",
});

function bench(name: string, fn: () => void, seconds = 2): void {
  for (let i = 0; i < 5_000; i++) fn(); // warm up the JIT
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(seconds * 1e9);
  while (process.hrtime.bigint() - start < budget) {
    for (let i = 0; i < 1_000; i++) fn();
    n += 1_000;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `${name.padEnd(48)} ${Math.round(n / secs)
      .toLocaleString("en-US")
      .padStart(10)} records/s`,
  );
}

const ctx = { now: new Date() };
const typicalValue = parseLossless(TYPICAL);
bench("parseLossless alone (minimal record)", () => void parseLossless(TYPICAL));
bench("normalizeAfcRecord (minimal record, all computed)", () => void normalizeAfcRecord(typicalValue, TYPICAL, ctx));
bench("parseLossless + normalizeAfcRecord (minimal)", () => void normalizeAfcRecord(parseLossless(TYPICAL), TYPICAL, ctx));
bench("parseLossless + normalizeAfcRecord (full record)", () => void normalizeAfcRecord(parseLossless(FULL), FULL, ctx));
