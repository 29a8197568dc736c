import { describe, expect, it } from "vitest";
import { locateMembers, rangeOf } from "./paths";

describe("json paths", () => {
  const text = '{\n  "event_id": "e",\n  "fare_amount_cents": "275",\n  "geometry": {"coordinates": [[1, 2], [3, 4]]}\n}';
  const members = locateMembers(text);

  it("finds each member's range from its key to its value's end", () => {
    const r = members!.get("fare_amount_cents")!;
    expect(text.slice(r.from, r.to)).toBe('"fare_amount_cents": "275"');
    const c = members!.get("geometry.coordinates.1")!;
    expect(text.slice(c.from, c.to)).toBe("[3, 4]");
  });

  it("falls back to the nearest known parent, then to the start", () => {
    expect(text.slice(...(Object.values(rangeOf(members, "payload.geometry.coordinates.9", text.length)) as [number, number]))).toBe(
      '"coordinates": [[1, 2], [3, 4]]',
    );
    expect(rangeOf(members, "nope", text.length)).toEqual({ from: 0, to: 1 });
  });

  it("gives up on text that does not parse", () => {
    expect(locateMembers('{"a": }')).toBeNull();
    expect(locateMembers('{"a": 1} x')).toBeNull();
    expect(locateMembers('"s\\"x"')).toEqual(new Map());
  });
});
