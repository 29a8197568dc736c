import { describe, expect, it } from "vitest";
import type { Origin } from "./connector";
import { inBrokerOrder, orderedHeaders, withHeaderOrder } from "./header-order";

const origin = (headers: Origin["headers"]): Origin => ({
  sourceType: "kafka",
  destination: { type: "kafka", topic: "orders", partition: 0, offset: "1", dlqTopic: "orders-dlt" },
  deathReason: null,
  deliveryCount: null,
  messageId: null,
  position: "orders-dlt:0:1",
  publishedAt: null,
  diedAt: null,
  headers,
  properties: {},
});

/** What a jsonb round trip does to an object's keys: shorter first, then bytewise. */
function throughJsonb<T>(value: T): T {
  if (Array.isArray(value)) return value.map(throughJsonb) as T;
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, throughJsonb((value as Record<string, unknown>)[k])])) as T;
}

describe("header order", () => {
  it("survives storage as jsonb: traceparent, x-tenant come back as sent", () => {
    const stored = throughJsonb(withHeaderOrder(origin({ traceparent: "00-abc", "x-tenant": "north", sig: { base64: "/wA=" } })));
    expect(Object.keys(stored.headers)).toEqual(["sig", "x-tenant", "traceparent"]);
    expect(Object.keys(inBrokerOrder(stored).headers)).toEqual(["traceparent", "x-tenant", "sig"]);
    expect(inBrokerOrder(stored).headers.sig).toEqual({ base64: "/wA=" });
  });

  it("keeps names the order does not hold, after the ordered ones, and leaves an origin without an order as it is", () => {
    expect(Object.keys(orderedHeaders({ b: "1", a: "2", c: "3" }, ["c", "gone", "b"]))).toEqual(["c", "b", "a"]);
    const h = { b: "1", a: "2" };
    expect(orderedHeaders(h, undefined)).toBe(h);
  });

  it("keeps __proto__ as an own header", () => {
    const headers = JSON.parse('{"__proto__":"x","a":"1"}') as Origin["headers"];
    const out = orderedHeaders(headers, ["a", "__proto__"]);
    expect(Object.keys(out)).toEqual(["a", "__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
