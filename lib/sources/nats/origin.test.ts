import { describe, expect, it } from "vitest";
import type { Advisory } from "./advisory";
import {
  deadLetterOrigin,
  headersToJson,
  instanceOf,
  missingMessageOrigin,
  positionOf,
  unreadableAdvisoryOrigin,
  utcMicros,
} from "./origin";

const maxDeliver: Advisory = {
  type: "io.nats.jetstream.advisory.v1.max_deliver",
  id: "K5QE3QasyPKqY1yS3ZatA5",
  timestamp: "2026-12-01T15:06:25.718012226Z",
  stream: "ORDERS",
  consumer: "worker",
  stream_seq: 42,
  deliveries: 2,
};

const terminated: Advisory = { ...maxDeliver, type: "io.nats.jetstream.advisory.v1.terminated", consumer_seq: 7, deliveries: 1 };

describe("utcMicros", () => {
  it.each([
    ["2026-12-01T15:06:25.718012226Z", "2026-12-01T15:06:25.718012Z"],
    ["2026-12-01T15:06:25Z", "2026-12-01T15:06:25.000000Z"],
    ["2026-12-01T15:06:25.7Z", "2026-12-01T15:06:25.700000Z"],
    ["2026-12-01t15:06:25.5z", "2026-12-01T15:06:25.500000Z"],
    ["2026-12-01T16:06:25.123456789+01:00", "2026-12-01T15:06:25.123456Z"],
    ["2026-01-01T00:30:00.000000001-01:00", "2026-01-01T01:30:00.000000Z"],
    ["2027-01-01T00:59:59.9+01:00", "2026-12-31T23:59:59.900000Z"],
  ])("%s → %s", (input, out) => {
    expect(utcMicros(input)).toBe(out);
  });
  it.each(["", "yesterday", "2026-12-01 15:06:25Z", "2026-12-01T15:06:25", "0001-01-01T00:00:00Z junk", "2026-13-45T99:00:00Z"])(
    "rejects %j",
    (s) => {
      expect(utcMicros(s)).toBeNull();
    },
  );
});

describe("headersToJson", () => {
  it("keeps one value as a string and repeated values as an array, in order", () => {
    const h: Array<[string, string[]]> = [
      ["X-Trace", ["abc"]],
      ["X-Multi", ["1", "2"]],
      ["Nats-Msg-Id", ["m1"]],
    ];
    expect(headersToJson(h)).toEqual({ "X-Trace": "abc", "X-Multi": ["1", "2"], "Nats-Msg-Id": "m1" });
  });
  it("is empty for a message without headers", () => {
    expect(headersToJson(undefined)).toEqual({});
    expect(headersToJson([])).toEqual({});
  });
  it("merges a key seen twice instead of losing the first values", () => {
    expect(
      headersToJson([
        ["a", ["1"]],
        ["a", ["2", "3"]],
      ]),
    ).toEqual({ a: ["1", "2", "3"] });
  });
  it("keeps empty strings (a header may be present and empty)", () => {
    expect(headersToJson([["X-Empty", [""]]])).toEqual({ "X-Empty": "" });
  });
  it("produces JSON-safe values", () => {
    const out = headersToJson([["k", ["v"]]]);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });
});

const created = "2026-12-01T15:00:00.123456789Z";
const instance = { created };

describe("deadLetterOrigin", () => {
  const stored = {
    subject: "orders.created",
    seq: 42,
    timestamp: "2026-12-01T15:06:25.106422990Z",
    headers: [
      ["X-Trace", ["abc"]],
      ["Nats-Msg-Id", ["m1"]],
    ] as Array<[string, string[]]>,
  };

  it("maps a max-deliveries advisory and its message", () => {
    expect(deadLetterOrigin(maxDeliver, instance, stored)).toEqual({
      sourceType: "nats",
      destination: { type: "nats", subject: "orders.created", stream: "ORDERS" },
      deathReason: "max_deliveries",
      deliveryCount: 2,
      messageId: "m1", // the producer's Nats-Msg-Id; the sequence is in the position
      position: `ORDERS:42@${created}`,
      publishedAt: "2026-12-01T15:06:25.106422Z",
      diedAt: "2026-12-01T15:06:25.718012Z",
      headers: { "X-Trace": "abc", "Nats-Msg-Id": "m1" },
      properties: { consumer: "worker", advisoryId: "K5QE3QasyPKqY1yS3ZatA5" },
    });
  });

  it("takes the stream sequence as the message id when the producer set no Nats-Msg-Id", () => {
    expect(deadLetterOrigin(maxDeliver, instance, { ...stored, headers: [["X-Trace", ["abc"]]] }).messageId).toBe("42");
  });

  it("maps a terminated advisory, keeping the consumer sequence and a reason when the server sends one", () => {
    const origin = deadLetterOrigin({ ...terminated, reason: "bad payload" }, instance, stored);
    expect(origin.deathReason).toBe("terminated");
    expect(origin.deliveryCount).toBe(1);
    expect(origin.properties).toEqual({ consumer: "worker", advisoryId: "K5QE3QasyPKqY1yS3ZatA5", consumerSeq: 7, reason: "bad payload" });
  });

  it("lists every consumer that gave up on the message", () => {
    expect(deadLetterOrigin(maxDeliver, instance, stored, ["worker", "audit"]).properties.consumers).toEqual(["worker", "audit"]);
  });

  it("takes the position from the advisory and the stream instance, so every re-delivery of it names the same one", () => {
    expect(deadLetterOrigin(maxDeliver, instance, stored).position).toBe(positionOf(maxDeliver, instance));
    expect(deadLetterOrigin({ ...maxDeliver, deliveries: 5, id: "other" }, instance, stored).position).toBe(`ORDERS:42@${created}`);
  });

  it("names sequence 42 of a stream re-created under the same name apart from the old one's", () => {
    const again = { created: "2026-12-02T09:00:00.000000001Z" };
    expect(deadLetterOrigin(maxDeliver, again, stored).position).not.toBe(deadLetterOrigin(maxDeliver, instance, stored).position);
  });

  it("leaves an unparseable timestamp as null rather than inventing one", () => {
    expect(deadLetterOrigin({ ...maxDeliver, timestamp: "soon" }, instance, { ...stored, timestamp: "" }).diedAt).toBeNull();
  });
});

describe("instanceOf", () => {
  it("is the stream now when the advisory is not older than it", () => {
    expect(instanceOf(maxDeliver, created)).toEqual({ created });
    expect(instanceOf(maxDeliver, "2026-12-01T15:06:25.718012Z")).toEqual({ created: "2026-12-01T15:06:25.718012Z" });
  });
  it("is gone when the stream was created after the advisory, or does not exist", () => {
    expect(instanceOf(maxDeliver, "2026-12-01T15:07:00Z")).toEqual({ gone: true });
    expect(instanceOf(maxDeliver, null)).toEqual({ gone: true });
    expect(positionOf(maxDeliver, { gone: true })).toBe("ORDERS:42@advisory:K5QE3QasyPKqY1yS3ZatA5");
  });
  it("counts unreadable times as the stream now", () => {
    expect(instanceOf({ timestamp: "soon" }, created)).toEqual({ created });
  });
});

describe("missingMessageOrigin", () => {
  it("keeps what the advisory says and leaves the unknown subject empty", () => {
    const origin = missingMessageOrigin(maxDeliver, instance);
    expect(origin.destination).toEqual({ type: "nats", subject: "", stream: "ORDERS" });
    expect(origin.position).toBe(`ORDERS:42@${created}`);
    expect(origin.deathReason).toBe("max_deliveries");
    expect(origin.publishedAt).toBeNull();
    expect(origin.headers).toEqual({});
  });
});

describe("unreadableAdvisoryOrigin", () => {
  it("is positioned in the advisory stream, apart from every message position", () => {
    const origin = unreadableAdvisoryOrigin("REDRIVE_ADVISORIES_x", 9, "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.worker");
    expect(origin.position).toBe("advisory:REDRIVE_ADVISORIES_x:9");
    expect(origin.deathReason).toBeNull();
    expect(origin.properties).toEqual({ advisorySubject: "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.ORDERS.worker" });
  });
});
