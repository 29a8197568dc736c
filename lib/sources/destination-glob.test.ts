import { describe, expect, it } from "vitest";
import { destinationsAllowed, globMatches } from "./destination-glob";

describe("globMatches", () => {
  it("matches the whole text, literally without a star", () => {
    expect(globMatches("orders/eu", "orders/eu")).toBe(true);
    expect(globMatches("orders/eu", "orders/eu.x")).toBe(false);
    expect(globMatches("orders/eu", "xorders/eu")).toBe(false);
    expect(globMatches("", "")).toBe(true);
  });

  it("takes * for any run of characters, empty, dots and slashes included", () => {
    expect(globMatches("orders/*", "orders/eu.de")).toBe(true);
    expect(globMatches("orders/*", "orders/")).toBe(true);
    expect(globMatches("*", "anything/at.all")).toBe(true);
    expect(globMatches("*", "")).toBe(true);
    expect(globMatches("orders/*.eu", "orders/a.b.eu")).toBe(true);
    expect(globMatches("orders/*.eu", "orders/a.b.us")).toBe(false);
    expect(globMatches("*.dlq.*", "app.dlq.x")).toBe(true);
    expect(globMatches("a*b*c", "abc")).toBe(true);
    expect(globMatches("a*b*c", "aXbYc")).toBe(true);
    expect(globMatches("a*b*c", "acb")).toBe(false);
    // The middle part must not overlap the last: "ab" then "b" needs two b's.
    expect(globMatches("a*ab*b", "aab")).toBe(false);
    expect(globMatches("a*ab*b", "aabb")).toBe(true);
  });

  it("gives no other character a meaning (regex and shell specials are literal)", () => {
    expect(globMatches("orders.eu", "ordersXeu")).toBe(false);
    expect(globMatches("q?", "qa")).toBe(false);
    expect(globMatches("q?", "q?")).toBe(true);
    expect(globMatches("[ab]", "a")).toBe(false);
    expect(globMatches("https://sqs.eu-west-1.amazonaws.com/1234/*", "https://sqs.eu-west-1.amazonaws.com/1234/orders")).toBe(true);
  });

  it("stays linear on patterns that make a backtracking regex explode", () => {
    const text = "a".repeat(50_000);
    const started = performance.now();
    expect(globMatches("*a*a*a*a*a*a*a*a*b", text)).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe("destinationsAllowed", () => {
  it("allows anything without a list, and needs every destination matched with one", () => {
    expect(destinationsAllowed(undefined, ["victim/x"])).toBe(true);
    expect(destinationsAllowed(["orders/*"], ["orders/eu", "orders/us"])).toBe(true);
    expect(destinationsAllowed(["orders/*"], ["orders/eu", "/victim-queue"])).toBe(false);
    expect(destinationsAllowed(["orders/*"], [])).toBe(false);
    expect(destinationsAllowed([], ["orders/eu"])).toBe(false);
  });
});
