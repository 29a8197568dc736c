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
});
