import { describe, expect, it } from "vitest";
import { summarizeDestinations } from "./origin-destinations";

const rabbit = (exchange: string, ...routingKeys: string[]) => ({ type: "rabbitmq", exchange, routingKeys, queue: null });

describe("summarizeDestinations", () => {
  it("lists each distinct destination of each source with its records, most first, and what the source refuses", () => {
    const options = new Map<string, unknown>([
      ["orders", { queue: "dlq", destinations: ["orders/eu.*"] }],
      ["open", { queue: "dlq2" }],
    ]);
    const forged = { source: "orders", destination: rabbit("", "payments"), count: 1 };
    const { destinations, refused } = summarizeDestinations(
      [
        { source: "orders", destination: rabbit("orders", "eu.de"), count: 3 },
        { source: "orders", destination: rabbit("orders", "eu.de", "eu.fr"), count: 2 },
        forged,
        { source: "open", destination: rabbit("", "payments"), count: 4 },
      ],
      options,
    );
    expect(destinations).toEqual([
      { source: "orders", destination: "orders/eu.de", count: 5, allowed: true },
      { source: "open", destination: "/payments", count: 4, allowed: true },
      { source: "orders", destination: "orders/eu.fr", count: 2, allowed: true },
      { source: "orders", destination: "/payments", count: 1, allowed: false },
    ]);
    expect(refused).toEqual([forged]);
  });

  it("refuses a record when any one of its routing keys is outside, and a source it cannot find allows everything", () => {
    const options = new Map<string, unknown>([["orders", { destinations: ["orders/eu.de"] }]]);
    const cc = { source: "orders", destination: rabbit("orders", "eu.de", "payments"), count: 1 };
    const gone = { source: "deleted", destination: rabbit("", "x"), count: 1 };
    const { destinations, refused } = summarizeDestinations([cc, gone], options);
    expect(refused).toEqual([cc]);
    expect(destinations.find((d) => d.destination === "orders/eu.de")?.allowed).toBe(true);
    expect(destinations.find((d) => d.destination === "orders/payments")?.allowed).toBe(false);
    expect(destinations.find((d) => d.source === "deleted")?.allowed).toBe(true);
  });
});
