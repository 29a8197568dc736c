import { describe, expect, it } from "vitest";
import { countOf, plural } from "./plural";

describe("plural", () => {
  it("uses the singular for exactly one, the plural for every other count", () => {
    expect(plural(1, "record")).toBe("record");
    expect(plural(0, "record")).toBe("records");
    expect(plural(2, "record")).toBe("records");
    expect(plural(1.5, "record")).toBe("records");
  });

  it("takes an irregular plural", () => {
    expect(plural(2, "batch", "batches")).toBe("batches");
    expect(plural(1, "batch", "batches")).toBe("batch");
  });

  it("writes the count grouped by thousands before the noun", () => {
    expect(countOf(1, "record")).toBe("1 record");
    expect(countOf(0, "record")).toBe("0 records");
    expect(countOf(1204, "record")).toBe("1,204 records");
    expect(countOf(3, "entry", "entries")).toBe("3 entries");
  });
});
