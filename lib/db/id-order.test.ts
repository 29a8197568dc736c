import { describe, expect, it } from "vitest";
import { compareIds } from "./id-order";

describe("compareIds", () => {
  it("orders decimal ids numerically, not as strings", () => {
    expect(["10", "9", "100", "11", "2"].sort(compareIds)).toEqual(["2", "9", "10", "11", "100"]);
  });
  it("orders ids past 2^53 exactly", () => {
    const big = ["9007199254740993", "9007199254740992", "18446744073709551"];
    expect([...big].sort(compareIds)).toEqual(["9007199254740992", "9007199254740993", "18446744073709551"]);
  });
  it("treats equal ids as equal, leading zeros or not", () => {
    expect(compareIds("42", "42")).toBe(0);
    expect(compareIds("007", "7")).toBe(0);
    expect(compareIds("010", "9")).toBe(1);
  });
  it("agrees with BigInt's order on every pair, written plainly or not", () => {
    const ids = ["1", "9", "10", "99", "100", "0", "00", "01", "12 ", " 12", "100 ", "9007199254740993", "09007199254740993"];
    for (const a of ids)
      for (const b of ids) {
        const [x, y] = [BigInt(a), BigInt(b)];
        expect(Math.sign(compareIds(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(x < y ? -1 : x > y ? 1 : 0);
      }
  });
});
