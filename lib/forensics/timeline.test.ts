import { describe, expect, it } from "vitest";
import { asRecordEvent } from "./timeline";

const row = (over: Partial<Parameters<typeof asRecordEvent>[0]>) => ({
  id: "7",
  at: new Date("2026-11-30T00:00:00Z"),
  actor_id: "u1",
  actor_email: "p@x",
  actor_role: "producer",
  action: "dead_letter.ingested",
  target_type: "dead_letter",
  target_id: null,
  before: null,
  after: null,
  diff: null,
  reason: null,
  hash: "h",
  ...over,
});

describe("asRecordEvent", () => {
  it("shows a batch's ingest event as the record's own: its entry, and how many the batch held", () => {
    const batch = row({
      after: {
        count: 2,
        records: [
          { id: "41", source: "a" },
          { id: "42", source: "b", failureClass: "poison" },
        ],
      },
    });
    expect(asRecordEvent(batch, "42")).toEqual({
      ...batch,
      target_id: "42",
      after: { source: "b", failureClass: "poison", batchRecords: 2 },
    });
  });

  it("leaves events about the record itself, and batches that do not list it, as they are", () => {
    const own = row({ target_id: "42", after: { source: "a" } });
    expect(asRecordEvent(own, "42")).toBe(own);
    const other = row({ after: { count: 1, records: [{ id: "41" }] } });
    expect(asRecordEvent(other, "42")).toBe(other);
  });
});
