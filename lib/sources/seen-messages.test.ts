import { describe, expect, it } from "vitest";
import { bodyHash, unseen, type Arrival } from "./seen-messages";

const arrival = (position: string, body: string, bodyGone = false): Arrival & { body: string } => ({
  position,
  body,
  bodyHash: bodyHash(Buffer.from(body)),
  bodyGone,
});

describe("unseen: which pulled messages to store", () => {
  it("skips a message handed out again after a crash: same position, same body", () => {
    const m = arrival("ORDERS:3@t1", "a");
    expect(unseen([m], [{ position: m.position, bodyHash: m.bodyHash }])).toEqual([]);
  });

  it("stores a known position that comes back with another body", () => {
    const old = arrival("ORDERS:3", "old");
    const fresh = arrival("ORDERS:3", "new");
    expect(unseen([fresh], [{ position: old.position, bodyHash: old.bodyHash }])).toEqual([fresh]);
  });

  it("keeps one per position and body within a page, in order", () => {
    const a = arrival("q/1", "a");
    const b = arrival("q/1", "b");
    const again = arrival("q/1", "a");
    const c = arrival("q/2", "a");
    expect(unseen([a, b, again, c], [])).toEqual([a, b, c]);
  });

  it("takes a message whose body is gone at a known position for the known one", () => {
    const stored = arrival("S:7@t", "body");
    expect(unseen([arrival("S:7@t", "", true)], [{ position: stored.position, bodyHash: stored.bodyHash }])).toEqual([]);
    const gone = arrival("S:8@t", "", true);
    expect(unseen([gone], [])).toEqual([gone]);
  });

  it("treats a row written before bodies were hashed as any body", () => {
    expect(unseen([arrival("q/1", "x")], [{ position: "q/1", bodyHash: "" }])).toEqual([]);
  });

  it("hashes the body's bytes", () => {
    expect(bodyHash(Buffer.from(""))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});
