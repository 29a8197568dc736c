import { describe, expect, it } from "vitest";
import { toPulled } from "./origin";

const b = (s: string) => Buffer.from(s, "utf8");
const claim = { mode: "claim", stream: "orders", field: "body", deliveryCount: 3 } as const;
const dlq = { mode: "dead_letter_stream", dlqStream: "orders:dlq", stream: "orders", field: "body" } as const;

describe("toPulled, claim mode", () => {
  it("keeps the body's bytes and turns the other fields into headers", () => {
    const body = Buffer.from([0xff, 0x00, 0xc3, 0x28]);
    const t = toPulled(
      { id: "1764600000000-7", fields: [b("event"), b("parcel.updated"), b("body"), body, b("sig"), Buffer.from([0x80, 0x81])] },
      claim,
    );
    expect(t.problem).toBeUndefined();
    expect(t.body.equals(body)).toBe(true);
    expect(t.origin).toEqual({
      sourceType: "redis",
      destination: { type: "redis", stream: "orders", field: "body" },
      deathReason: "max_deliveries",
      deliveryCount: 3,
      messageId: "1764600000000-7",
      position: "orders:1764600000000-7",
      publishedAt: "2025-12-01T14:40:00.000Z",
      diedAt: null,
      headers: { event: "parcel.updated", sig: { base64: "gIE=" } },
      properties: {},
    });
  });

  it("reports an entry that is gone with an empty body and no headers", () => {
    const t = toPulled({ id: "5-0", fields: null }, claim);
    expect(t.body.length).toBe(0);
    expect(t.problem).toBe('entry 5-0 is no longer in stream "orders" (trimmed or deleted)');
    expect(t.origin.headers).toEqual({});
    expect(t.origin.deliveryCount).toBe(3);
    expect(t.origin.position).toBe("orders:5-0");
  });

  it("names the missing body field and the fields the entry had", () => {
    const t = toPulled({ id: "5-0", fields: [b("payload"), b("{}"), b("kind"), b("x")] }, claim);
    expect(t.problem).toBe('entry 5-0 has no "body" field (its fields: "payload", "kind")');
    expect(t.body.length).toBe(0);
    expect(t.origin.headers).toEqual({ payload: "{}", kind: "x" });
  });
});

describe("toPulled, dead-letter stream mode", () => {
  it("publishes back to the stream the entry names, dated by its source id, dead when it was copied", () => {
    const t = toPulled(
      {
        id: "1764600060000-0",
        fields: [b("body"), b("{}"), b("source_stream"), b("parcels"), b("source_id"), b("1764600000000-3"), b("error"), b("boom")],
      },
      dlq,
    );
    expect(t.origin).toMatchObject({
      destination: { type: "redis", stream: "parcels", field: "body" },
      deathReason: "dead_letter_stream",
      deliveryCount: null,
      messageId: "1764600060000-0",
      position: "orders:dlq:1764600060000-0",
      publishedAt: "2025-12-01T14:40:00.000Z",
      diedAt: "2025-12-01T14:41:00.000Z",
      headers: { source_stream: "parcels", source_id: "1764600000000-3", error: "boom" },
    });
  });

  it("falls back to the configured stream and leaves publishedAt unknown when the entry names neither", () => {
    const t = toPulled({ id: "1764600060000-0", fields: [b("body"), b("x"), b("source_id"), b("not-an-id")] }, dlq);
    expect(t.origin.destination).toEqual({ type: "redis", stream: "orders", field: "body" });
    expect(t.origin.publishedAt).toBeNull();
  });
});
