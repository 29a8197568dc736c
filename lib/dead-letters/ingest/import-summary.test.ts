import { describe, expect, it } from "vitest";
import { importSummary } from "./import-summary";

describe("importSummary", () => {
  it("says how many records, how fast, and each outcome, as the CLI always has", () => {
    expect(importSummary({ created: 3, duplicate: 1, rejected: 1 }, 2)).toBe(
      "imported 5 records in 2.0 s (3/s): 3 created, 1 duplicate, 1 rejected",
    );
    expect(importSummary({ created: 0, duplicate: 0, rejected: 0 }, 0)).toBe(
      "imported 0 records in 0.0 s (0/s): 0 created, 0 duplicate, 0 rejected",
    );
  });

  it("says one record in the singular", () => {
    expect(importSummary({ created: 1, duplicate: 0, rejected: 0 }, 1)).toBe(
      "imported 1 record in 1.0 s (1/s): 1 created, 0 duplicate, 0 rejected",
    );
  });
});
