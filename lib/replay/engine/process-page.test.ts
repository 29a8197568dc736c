import { describe, expect, it } from "vitest";
import type { ClaimedItem } from "./claim-items";
import { decideOrSubmit, type BatchConfig } from "./process-page";
import { ledgerSink } from "../sinks/ledger/ledger-sink";

// Per item, in this order: still replayable → already settled → re-validate → poison check → submit.

const batch: BatchConfig = {
  id: "1",
  sink: ledgerSink(),
  ratePerSecond: 10,
  pageSize: 10,
  maxReplays: 3,
  maxAttempts: 5,
  repairMethod: "linework",
  repairPolicy: "accept",
  repairOverride: false,
};
const tap = { event_id: "e1", device_id: "d1", fare_amount_cents: 250, tap_timestamp: "2026-11-01T00:00:00Z" };
const item = (over: Partial<ClaimedItem> = {}): ClaimedItem => ({
  id: "7",
  seq: 1,
  batchId: "1",
  deadLetterId: "42",
  kind: "afc",
  idempotencyKey: "k1",
  entityKey: "d1",
  observedAt: "2026-11-01T00:00:00.000000Z",
  payload: tap,
  approvedRepair: null,
  attempts: 0,
  leaseLosses: 0,
  recordStatus: "approved",
  replayCount: 0,
  edited: false,
  settled: false,
  ...over,
});
const outcome = (r: ReturnType<typeof decideOrSubmit>) => ("type" in r && r.type === "decided" ? [r.outcome, r.reason] : ["submit", null]);

describe("decideOrSubmit", () => {
  it("submits a valid record under its stored key, verbatim", () => {
    const r = decideOrSubmit(item(), { batch, geos: null });
    expect(r).toMatchObject({ itemId: "7", idempotencyKey: "k1", payload: tap, entityKey: "d1" });
  });

  it("cancels records withdrawn or edited since the batch was made", () => {
    expect(outcome(decideOrSubmit(item({ recordStatus: "purged" }), { batch, geos: null }))).toEqual([
      "cancelled",
      "the record is purged now (approved when batched)",
    ]);
    expect(outcome(decideOrSubmit(item({ edited: true }), { batch, geos: null }))[0]).toBe("cancelled");
  });

  it("dedupes a settled key before anything else about the record", () => {
    expect(outcome(decideOrSubmit(item({ settled: true, payload: { broken: true }, replayCount: 9 }), { batch, geos: null }))).toEqual([
      "deduped",
      null,
    ]);
  });

  it("drops before the poison check, and checks poison before submitting", () => {
    expect(
      outcome(decideOrSubmit(item({ payload: { ...tap, fare_amount_cents: "2.50" }, replayCount: 9 }), { batch, geos: null }))[0],
    ).toBe("dropped");
    expect(outcome(decideOrSubmit(item({ replayCount: 3 }), { batch, geos: null }))).toEqual([
      "poison",
      "replayed 3 times (the batch allows 3)",
    ]);
  });
});
