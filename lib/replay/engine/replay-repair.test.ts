import { describe, expect, it } from "vitest";
import type { ApprovedRepair } from "../../vocabulary/record";
import { conflictsWithPin, readPin, replayRepair } from "./replay-repair";

const pin: ApprovedRepair = { method: "linework", policy: "accept", digest: "a".repeat(64), outcome: "repaired" };

describe("replayRepair", () => {
  it("replays a pinned record with its approved repair and digest, whatever the batch says", () => {
    expect(replayRepair(pin, { method: "structure", policy: "drop", override: false })).toEqual({
      method: "linework",
      policy: "accept",
      digest: pin.digest,
      from: "approval",
    });
  });

  it("uses the batch's repair, unchecked, for a record approved without one", () => {
    expect(replayRepair(null, { method: "structure", policy: "largest-part", override: false })).toEqual({
      method: "structure",
      policy: "largest-part",
      digest: null,
      from: "batch",
    });
  });

  it("with a confirmed override uses the batch's repair, still holding the digest where the settings agree", () => {
    expect(replayRepair(pin, { method: "structure", policy: "accept", override: true })).toMatchObject({
      method: "structure",
      digest: null,
    });
    expect(replayRepair(pin, { method: "linework", policy: "accept", override: true })).toMatchObject({ digest: pin.digest });
  });
});

describe("conflictsWithPin", () => {
  it("counts only repaired geometries approved with other settings", () => {
    expect(conflictsWithPin(pin, { method: "structure", policy: "accept" })).toBe(true);
    expect(conflictsWithPin(pin, { method: "linework", policy: "largest-part" })).toBe(true);
    expect(conflictsWithPin(pin, { method: "linework", policy: "accept" })).toBe(false);
    expect(conflictsWithPin({ ...pin, outcome: "valid" }, { method: "structure", policy: "drop" })).toBe(false);
  });
});

describe("readPin", () => {
  it("reads a stored pin and treats anything else as none", () => {
    expect(readPin(pin)).toEqual(pin);
    expect(readPin(null)).toBeNull();
    expect(readPin({ method: "linework" })).toBeNull();
    expect(readPin({ ...pin, digest: "xyz" })).toBeNull();
  });
});
