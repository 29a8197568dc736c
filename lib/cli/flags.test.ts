import { describe, expect, it } from "vitest";
import { flagFor } from "./context";

describe("CLI error flags", () => {
  it("names the flag the user typed", () => {
    expect(flagFor(["radiusKm"])).toBe("--radius-km");
    expect(flagFor(["backoffBaseMs"])).toBe("--backoff-base-ms");
    expect(flagFor(["status", 0])).toBe("--status");
    expect(flagFor(["limit"])).toBe("--limit");
    expect(flagFor([])).toBe("options");
  });
});
