import { describe, expect, it } from "vitest";
import { maskEntityKey, maskIdentifier } from "./identifiers";
import { DEFAULT_MASK_RULES, maskRules } from "./rules";

describe("identifier copies", () => {
  it("are masked when a configured glob names their field", () => {
    const rules = maskRules(["device*", "card*"]);
    expect(maskIdentifier("gate-11", "device_id", rules)).toBe("•••");
    expect(maskIdentifier("ev-1", "event_id", rules)).toBe("ev-1");
    expect(maskIdentifier(null, "device_id", rules)).toBeNull();
    expect(maskEntityKey("gate-11", "afc", rules)).toBe("•••");
    expect(maskEntityKey("parcel-7", "spatial", rules)).toBe("parcel-7");
  });

  it("are left alone by the default globs and for readers who see everything", () => {
    for (const field of ["event_id", "device_id", "source_message_id"] as const)
      expect(maskIdentifier("x", field, DEFAULT_MASK_RULES)).toBe("x");
    expect(maskIdentifier("gate-11", "device_id", null)).toBe("gate-11");
  });
});
