import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeAttributes, deduplicationId, encodeAttributes, outgoingSend, parseQueueArn, sendTarget, toPulled } from "./message";

const received = {
  MessageId: "5fea7756-0ea4-451a-a703-a558b933e274",
  Body: '{"kind":"spatial"}',
  Attributes: {
    SentTimestamp: "1796163266700",
    ApproximateReceiveCount: "3",
    MessageGroupId: "parcel-1",
    DeadLetterQueueSourceArn: "arn:aws:sqs:eu-west-1:123456789012:parcels.fifo",
  },
  MessageAttributes: {
    trace: { DataType: "String", StringValue: "t-1" },
    count: { DataType: "Number", StringValue: "42" },
    blob: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 255]) },
    tagged: { DataType: "String.tenant", StringValue: "acme" },
  },
};

describe("toPulled", () => {
  it("reads the system attributes into the origin and keeps the message attributes with their types", () => {
    const t = toPulled(received, { queueName: "parcels-dlq.fifo", sourceQueueUrl: null });
    expect(t.problem).toBeUndefined();
    expect(t.body.toString()).toBe('{"kind":"spatial"}');
    expect(t.origin).toEqual({
      sourceType: "sqs",
      destination: { type: "sqs", queueArn: "arn:aws:sqs:eu-west-1:123456789012:parcels.fifo", queueUrl: null },
      deathReason: "max_receive_count",
      deliveryCount: 3,
      messageId: "5fea7756-0ea4-451a-a703-a558b933e274",
      position: "parcels-dlq.fifo/5fea7756-0ea4-451a-a703-a558b933e274",
      publishedAt: "2026-12-01T22:14:26.700Z",
      diedAt: null,
      headers: {
        trace: "t-1",
        count: { dataType: "Number", value: "42" },
        blob: { dataType: "Binary", base64: "AQL/" },
        tagged: { dataType: "String.tenant", value: "acme" },
      },
      properties: received.Attributes,
    });
  });

  it("without DeadLetterQueueSourceArn the destination is the source's sourceQueueUrl; odd counts and times are null", () => {
    const t = toPulled(
      { MessageId: "m", Body: "x", Attributes: { ApproximateReceiveCount: "many", SentTimestamp: "soon" } },
      { queueName: "dlq", sourceQueueUrl: "http://localhost:5000/1/src" },
    );
    expect(t.origin.destination).toEqual({ type: "sqs", queueArn: null, queueUrl: "http://localhost:5000/1/src" });
    expect(t.origin.deliveryCount).toBeNull();
    expect(t.origin.publishedAt).toBeNull();
  });

  it("a message without a body keeps why", () => {
    expect(toPulled({ MessageId: "m" }, { queueName: "dlq", sourceQueueUrl: null }).problem).toMatch(/without a body/);
  });
});

describe("attributes round trip", () => {
  it("encodes what it decoded, byte for byte and type for type", () => {
    const back = encodeAttributes(decodeAttributes(received.MessageAttributes));
    expect(back).toEqual({
      ok: true,
      attributes: {
        trace: { DataType: "String", StringValue: "t-1" },
        count: { DataType: "Number", StringValue: "42" },
        blob: { DataType: "Binary", BinaryValue: Buffer.from([1, 2, 255]) },
        tagged: { DataType: "String.tenant", StringValue: "acme" },
      },
    });
  });

  it("names a header that is not an attribute it recorded", () => {
    expect(encodeAttributes({ ok: "x", odd: [1] })).toEqual({ ok: false, name: "odd" });
  });
});

describe("deduplicationId", () => {
  const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

  it("is the key itself up to 128 characters of ASCII letters, digits and punctuation", () => {
    expect(deduplicationId("evt-001")).toBe("evt-001");
    const k128 = "a".repeat(128);
    expect(deduplicationId(k128)).toBe(k128);
    expect(deduplicationId("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")).toBe("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
  });

  it("is the key's SHA-256 hex when longer than 128 characters, or holding what SQS refuses", () => {
    const k129 = "a".repeat(129);
    expect(deduplicationId(k129)).toBe(sha(k129));
    expect(deduplicationId(k129)).toHaveLength(64);
    expect(deduplicationId("two words")).toBe(sha("two words"));
    expect(deduplicationId("clé")).toBe(sha("clé"));
  });
});

describe("sendTarget", () => {
  it("prefers SQS's DeadLetterQueueSourceArn, else the source's URL, else refuses with the reason", () => {
    expect(sendTarget({ type: "sqs", queueArn: "arn:aws:sqs:eu-west-1:123456789012:parcels.fifo", queueUrl: "http://h/1/other" })).toEqual({
      ok: true,
      by: "arn",
      arn: { region: "eu-west-1", account: "123456789012", name: "parcels.fifo" },
      fifo: true,
    });
    expect(sendTarget({ type: "sqs", queueArn: null, queueUrl: "http://h/1/src" })).toEqual({
      ok: true,
      by: "url",
      url: "http://h/1/src",
      fifo: false,
    });
    const none = sendTarget({ type: "sqs", queueArn: null, queueUrl: null });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.reason).toMatch(/no DeadLetterQueueSourceArn.*sourceQueueUrl/);
  });

  it("refuses an ARN that names no SQS queue", () => {
    expect(parseQueueArn("arn:aws:sns:eu-west-1:123456789012:topic")).toBeNull();
    expect(sendTarget({ type: "sqs", queueArn: "arn:aws:sns:eu-west-1:123456789012:topic", queueUrl: null }).ok).toBe(false);
  });
});

describe("outgoingSend", () => {
  const origin = { headers: decodeAttributes(received.MessageAttributes), properties: { MessageGroupId: "parcel-1" } };

  it("keeps the attributes, adds Idempotency-Key, and for FIFO keeps the group with the key as dedup id", () => {
    const r = outgoingSend("evt-1", Buffer.from("{}"), origin, true);
    if (!r.ok) throw new Error(r.reason);
    expect(r.send.MessageBody).toBe("{}");
    expect(r.send.MessageAttributes["Idempotency-Key"]).toEqual({ DataType: "String", StringValue: "evt-1" });
    expect(r.send.MessageAttributes.trace).toEqual({ DataType: "String", StringValue: "t-1" });
    expect(r.send.MessageGroupId).toBe("parcel-1");
    expect(r.send.MessageDeduplicationId).toBe("evt-1");
  });

  it("a standard queue gets neither group nor dedup id; an old Idempotency-Key is replaced", () => {
    const r = outgoingSend("evt-2", Buffer.from("{}"), { headers: { "Idempotency-Key": "old" }, properties: {} }, false);
    if (!r.ok) throw new Error(r.reason);
    expect(r.send).toEqual({ MessageBody: "{}", MessageAttributes: { "Idempotency-Key": { DataType: "String", StringValue: "evt-2" } } });
  });

  it("refuses a FIFO send without a group and an eleventh attribute", () => {
    expect(outgoingSend("k", Buffer.from("{}"), { headers: {}, properties: {} }, true)).toMatchObject({
      ok: false,
      reason: /MessageGroupId/,
    });
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, "v"]));
    expect(outgoingSend("k", Buffer.from("{}"), { headers: ten, properties: {} }, false)).toMatchObject({
      ok: false,
      reason: /10 attributes/,
    });
  });
});
