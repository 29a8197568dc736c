import { describe, expect, it } from "vitest";
import { MAX_TAIL, MIN_TAIL, splitForMiddleTruncation } from "./middle-truncate";

describe("splitForMiddleTruncation", () => {
  it("keeps a short key whole in the tail", () => {
    expect(splitForMiddleTruncation("w3-bowtie-1")).toEqual({ head: "", tail: "w3-bowtie-1" });
    expect(splitForMiddleTruncation("a".repeat(MAX_TAIL))).toEqual({ head: "", tail: "a".repeat(MAX_TAIL) });
  });

  it("keeps the distinguishing end of keys that share a long prefix", () => {
    const tails = ["rabbit-orders:w3-bowtie-1", "rabbit-orders:w3-bowtie-2", "rabbit-orders:w3-bowtie-3"].map(
      (k) => splitForMiddleTruncation(k).tail,
    );
    expect(tails).toEqual([":w3-bowtie-1", ":w3-bowtie-2", ":w3-bowtie-3"]);
  });

  it("cuts at the separator furthest from the end within MAX_TAIL, and the parts join to the key", () => {
    const key = "producer-msg-1796571817221-1";
    const { head, tail } = splitForMiddleTruncation(key);
    expect(head + tail).toBe(key);
    expect(tail).toBe("7221-1");
    expect(tail.length).toBeGreaterThanOrEqual(MIN_TAIL);
  });

  it("gives a separator-less end (a hash) its last MIN_TAIL characters", () => {
    const key = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    expect(splitForMiddleTruncation(key).tail).toBe("f00a08");
  });

  it("never splits a surrogate pair", () => {
    const key = `${"x".repeat(20)}🙂🙂🙂🙂🙂🙂`;
    const { head, tail } = splitForMiddleTruncation(key);
    expect(tail).toBe("🙂🙂🙂🙂🙂🙂");
    expect(head).toBe("x".repeat(20));
  });
});
