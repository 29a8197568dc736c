import { describe, expect, it } from "vitest";
import type { BatchPreview } from "@/lib/replay/batch/batch-schemas";
import { defaultSink, previewForSink, sinkHelp } from "./preview-for-sink";

const preview = (skipped: Partial<BatchPreview["skipped"]>, count = 142): BatchPreview => ({
  count,
  byKind: { spatial: count, afc: 0 },
  firstObservedAt: null,
  lastObservedAt: null,
  entities: count,
  sample: [],
  skipped: { notApproved: 0, inActiveBatch: 0, noKey: 0, noOrigin: 0, ...skipped },
});

describe("previewForSink", () => {
  it("does not call records without an origin records without a key, nor leave them out, for a sink other than origin", () => {
    // The form said "Left out: 142 without an idempotency key" for 142 keyed records ingested over HTTP, then created 142.
    for (const sink of ["ledger", "http", "postgis"] as const) {
      expect(previewForSink(preview({ noOrigin: 142 }), sink)).toEqual({ count: 142, leftOut: [] });
    }
  });

  it("leaves them out of the origin sink's count, saying why", () => {
    expect(previewForSink(preview({ noOrigin: 40 }), "origin")).toEqual({
      count: 102,
      leftOut: ["40 not pulled from a broker source (nowhere to go back to)"],
    });
  });

  it("names each other reason with its own words", () => {
    expect(previewForSink(preview({ notApproved: 1200, inActiveBatch: 3, noKey: 2 }), "ledger").leftOut).toEqual([
      "1,200 not approved",
      "3 already in an active batch",
      "2 without an idempotency key",
    ]);
  });
});

describe("defaultSink", () => {
  it("starts with back to origin when opened from a broker source's records (origin=)", () => {
    expect(defaultSink({ filter: { origin: "orders-rabbit", status: ["approved"] } })).toBe("origin");
  });
  it("starts with the built-in ledger otherwise", () => {
    expect(defaultSink({ filter: { status: ["approved"] } })).toBe("ledger");
    expect(defaultSink({ filter: { source: "orders-rabbit" } })).toBe("ledger");
    expect(defaultSink({ ids: ["1", "2"] })).toBe("ledger");
  });
});

describe("sinkHelp", () => {
  it("describes each sink in its own words, never another's", () => {
    const names = { ledger: "Built-in ledger", http: "HTTP", origin: "Back to origin", postgis: "PostGIS table" } as const;
    for (const [type, name] of Object.entries(names)) {
      const help = sinkHelp(type as keyof typeof names);
      expect(help.startsWith(`${name}:`)).toBe(true);
      for (const [other, otherName] of Object.entries(names)) if (other !== type) expect(help).not.toContain(`${otherName}:`);
    }
  });
});
