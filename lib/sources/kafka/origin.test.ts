import { describe, expect, it } from "vitest";
import type { RawHeader } from "./dlq-headers";
import { toPulled, type DlqRecord } from "./origin";
import { outgoingRecord } from "./outgoing";

const t = (name: string, value: string): RawHeader => [name, Buffer.from(value, "utf8")];
const int32 = (n: number) => Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

const springRecord: DlqRecord = {
  topic: "orders-dlt",
  partition: 1,
  offset: "42",
  key: Buffer.from("order-17"),
  value: Buffer.from('{"kind":"spatial"}'),
  timestamp: "1764600000123",
  headers: [
    t("traceparent", "00-abc-def-01"),
    t("kafka_dlt-original-topic", "orders"),
    ["kafka_dlt-original-partition", int32(3)],
    t("kafka_dlt-exception-fqcn", "java.lang.IllegalStateException"),
    t("kafka_dlt-exception-message", "bad ring"),
  ],
};

describe("toPulled", () => {
  it("makes the original topic and partition the destination and the exception the reason", () => {
    const { origin, body, problem } = toPulled(springRecord);
    expect(body.toString()).toBe('{"kind":"spatial"}');
    expect(problem).toBeUndefined();
    expect(origin).toMatchObject({
      sourceType: "kafka",
      destination: { type: "kafka", topic: "orders", partition: 3, offset: null, dlqTopic: "orders-dlt" },
      deathReason: "java.lang.IllegalStateException: bad ring",
      messageId: null,
      position: "orders-dlt:1:42@2025-12-01T14:40:00.123Z",
      diedAt: "2025-12-01T14:40:00.123Z",
      properties: {
        key: "order-17",
        dlq: { topic: "orders-dlt", partition: 1, offset: "42" },
        convention: "spring",
        exceptionClass: "java.lang.IllegalStateException",
      },
    });
    expect(origin.headers).toMatchObject({ traceparent: "00-abc-def-01", "kafka_dlt-original-partition": { base64: "AAAAAw==" } });
  });

  it("names offset 42 of a topic re-created under the same name apart from the old one's, by the record's time", () => {
    const old = toPulled(springRecord).origin.position;
    const recreated = toPulled({ ...springRecord, timestamp: "1764700000000" }).origin.position;
    expect(recreated).toBe("orders-dlt:1:42@2025-12-02T18:26:40.000Z");
    expect(recreated).not.toBe(old);
    expect(toPulled({ ...springRecord, timestamp: null }).origin.position).toBe("orders-dlt:1:42");
  });

  it("keeps a tombstone with why, and a binary key as base64", () => {
    const r = toPulled({ ...springRecord, value: null, key: Buffer.from([0xff]) });
    expect(r.problem).toBe("record orders-dlt:1:42 has no value (a tombstone)");
    expect(r.origin.properties.key).toEqual({ base64: "/w==" });
  });
});

describe("outgoingRecord", () => {
  it("goes to the original topic with the key, the record's own headers and the idempotency key", () => {
    const { origin } = toPulled({ ...springRecord, headers: [...springRecord.headers, t("idempotency-key", "stale")] });
    const out = outgoingRecord(origin, "abc123");
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.record.topic).toBe("orders");
    expect(out.record.key?.toString()).toBe("order-17");
    expect(Object.fromEntries(Object.entries(out.record.headers).map(([k, v]) => [k, v.map((b) => b.toString())]))).toEqual({
      traceparent: ["00-abc-def-01"],
      "idempotency-key": ["abc123"],
    });
  });

  it("refuses, with a reason, a record that names no original topic", () => {
    const { origin } = toPulled({ ...springRecord, headers: [t("traceparent", "x")] });
    expect(outgoingRecord(origin, "k")).toEqual({ ok: false, reason: expect.stringMatching(/names no original topic/) });
  });

  it("sends a keyless record without a key", () => {
    const { origin } = toPulled({ ...springRecord, key: null });
    const out = outgoingRecord(origin, "k");
    expect(out.ok && out.record.key).toBeNull();
  });
});
