import { describe, expect, it } from "vitest";
import { orList } from "./word-list";

describe("orList", () => {
  it("says a list as a sentence does", () => {
    expect(orList([])).toBe("");
    expect(orList(["a queue"])).toBe("a queue");
    expect(orList(["a queue", "a stream"])).toBe("a queue or a stream");
    expect(orList(["a queue", "a stream", "a topic"])).toBe("a queue, a stream or a topic");
  });
});
