import { describe, expect, it } from "vitest";
import { advisoryCapture, nameToken } from "./names";

describe("nameToken", () => {
  it("keeps a name made of safe characters as it is", () => {
    expect(nameToken("orders-dlq_1")).toBe("orders-dlq_1");
  });
  it("replaces other characters and adds a hash of the original, so similar names stay apart", () => {
    const dotted = nameToken("orders.dlq");
    const underscored = nameToken("orders_dlq");
    expect(dotted).toMatch(/^orders_dlq_[0-9a-f]{8}$/);
    expect(underscored).toBe("orders_dlq");
    expect(nameToken("Orders DLQ")).not.toBe(nameToken("Orders_DLQ"));
  });
  it("is stable", () => {
    expect(nameToken("prod / orders")).toBe(nameToken("prod / orders"));
  });
  it("bounds the length and hashes long names", () => {
    const long = "x".repeat(300);
    expect(nameToken(long).length).toBeLessThanOrEqual(48);
    expect(nameToken(long)).not.toBe(nameToken(`${long}y`));
  });
  it("gives an empty or all-symbol name a usable token", () => {
    expect(nameToken("")).toMatch(/^_[0-9a-f]{8}$/);
    expect(nameToken("ü")).toMatch(/^__[0-9a-f]{8}$/);
  });
  it("only produces JetStream-safe characters", () => {
    for (const n of ["a.b*c>d", "tab\there", "slash/back\\", "日本"]) expect(nameToken(n)).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("advisoryCapture", () => {
  it("captures every consumer of the stream when none is named", () => {
    expect(advisoryCapture("orders", "ORDERS", undefined)).toEqual({
      stream: "REDRIVE_ADVISORIES_orders",
      consumer: "REDRIVE_orders",
      subjects: ["$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.*", "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.ORDERS.*"],
    });
  });
  it("captures one consumer's advisories when it is named", () => {
    expect(advisoryCapture("orders", "ORDERS", "billing").subjects).toEqual([
      "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.billing",
      "$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.ORDERS.billing",
    ]);
  });
});
