import { describe, expect, it } from "vitest";
import { after, entryIdTime, positionOf } from "./entry-id";

describe("entry ids", () => {
  it("dates an entry by its milliseconds", () => {
    expect(entryIdTime("0-1")).toBe("1970-01-01T00:00:00.000Z");
    expect(entryIdTime("1764600000123-0")).toBe("2025-12-01T14:40:00.123Z");
  });

  it("has no time for something that is not an id, or out of Date's range", () => {
    for (const id of ["", "abc", "12", "1-2-3", "-1-0", "99999999999999999999-0"]) expect(entryIdTime(id)).toBeNull();
  });

  it("pages after an id and names a position by stream and id", () => {
    expect(after("5-1")).toBe("(5-1");
    expect(positionOf("a:b", "5-1")).toBe("a:b:5-1");
  });
});
