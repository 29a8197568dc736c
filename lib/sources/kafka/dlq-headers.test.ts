import { describe, expect, it } from "vitest";
import { dlqContext, headersToJson, isDlqContextHeader, jsonToHeaders, type RawHeader } from "./dlq-headers";

const t = (name: string, value: string): RawHeader => [name, Buffer.from(value, "utf8")];
// As Spring writes them: ByteBuffer.allocate(4).putInt(…) and ByteBuffer.allocate(8).putLong(…).
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const int64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};

describe("dlqContext: Spring Kafka's DeadLetterPublishingRecoverer", () => {
  const spring: RawHeader[] = [
    t("traceparent", "00-abc-def-01"),
    t("kafka_dlt-original-topic", "orders"),
    ["kafka_dlt-original-partition", int32(7)],
    ["kafka_dlt-original-offset", int64(9_007_199_254_740_993n)],
    ["kafka_dlt-original-timestamp", int64(1_764_600_000_123n)],
    t("kafka_dlt-original-timestamp-type", "CreateTime"),
    t("kafka_dlt-original-consumer-group", "order-workers"),
    t("kafka_dlt-exception-fqcn", "org.springframework.kafka.listener.ListenerExecutionFailedException"),
    t("kafka_dlt-exception-cause-fqcn", "java.lang.IllegalStateException"),
    t("kafka_dlt-exception-message", "Listener failed; geometry has 3 points"),
    t("kafka_dlt-exception-stacktrace", "java.lang.IllegalStateException: …\n\tat x.y(Z.java:1)"),
  ];

  it("decodes the binary partition, offset and timestamp exactly", () => {
    expect(dlqContext(spring)).toEqual({
      convention: "spring",
      topic: "orders",
      partition: 7,
      offset: "9007199254740993",
      timestamp: "2025-12-01T14:40:00.123Z",
      timestampType: "CreateTime",
      consumerGroup: "order-workers",
      exceptionClass: "org.springframework.kafka.listener.ListenerExecutionFailedException",
      causeClass: "java.lang.IllegalStateException",
      exceptionMessage: "Listener failed; geometry has 3 points",
      connector: null,
      taskId: null,
      stage: null,
      className: null,
      problems: [],
    });
  });

  it("keeps the first original-* and the newest exception when a record died twice", () => {
    const twice = [...spring, t("kafka_dlt-original-topic", "orders-retry-1"), t("kafka_dlt-exception-message", "second failure")];
    expect(dlqContext(twice)).toMatchObject({ topic: "orders", exceptionMessage: "second failure" });
  });

  it("names a number of the wrong width instead of misreading it", () => {
    const bad = dlqContext([t("kafka_dlt-original-topic", "orders"), t("kafka_dlt-original-partition", "7")]);
    expect(bad.partition).toBeNull();
    expect(bad.problems).toEqual(["kafka_dlt-original-partition is 1 bytes, not the 4-byte big-endian number Spring writes"]);
  });

  it("reads a negative partition and offset as Java's signed numbers", () => {
    const c = dlqContext([
      ["kafka_dlt-original-partition", int32(-1)],
      ["kafka_dlt-original-offset", int64(-1n)],
    ]);
    expect([c.partition, c.offset]).toEqual([-1, "-1"]);
  });
});

describe("dlqContext: Kafka Connect's dead-letter queue", () => {
  it("reads every context header as UTF-8 text", () => {
    const c = dlqContext([
      t("__connect.errors.topic", "geo.features"),
      t("__connect.errors.partition", "2"),
      t("__connect.errors.offset", "123456789012"),
      t("__connect.errors.connector.name", "postgis-sink"),
      t("__connect.errors.task.id", "0"),
      t("__connect.errors.stage", "VALUE_CONVERTER"),
      t("__connect.errors.class.name", "org.apache.kafka.connect.json.JsonConverter"),
      t("__connect.errors.exception.class.name", "org.apache.kafka.connect.errors.DataException"),
      t("__connect.errors.exception.message", "Converting byte[] to Kafka Connect data failed"),
      t("__connect.errors.exception.stacktrace", "org.apache.kafka.connect.errors.DataException: …"),
    ]);
    expect(c).toEqual({
      convention: "kafka-connect",
      topic: "geo.features",
      partition: 2,
      offset: "123456789012",
      timestamp: null,
      timestampType: null,
      consumerGroup: null,
      exceptionClass: "org.apache.kafka.connect.errors.DataException",
      causeClass: null,
      exceptionMessage: "Converting byte[] to Kafka Connect data failed",
      connector: "postgis-sink",
      taskId: "0",
      stage: "VALUE_CONVERTER",
      className: "org.apache.kafka.connect.json.JsonConverter",
      problems: [],
    });
  });

  it("says when a number is not one", () => {
    expect(dlqContext([t("__connect.errors.partition", "two")]).problems).toEqual(["__connect.errors.partition is not a decimal number"]);
  });
});

describe("without context headers", () => {
  it("has no convention and nothing decoded", () => {
    expect(dlqContext([t("traceparent", "x")])).toMatchObject({ convention: null, topic: null, offset: null, problems: [] });
  });
});

describe("headers as JSON and back", () => {
  it("keeps text as text, binary (even valid UTF-8 control bytes) as base64, repeats as arrays, in order", () => {
    const raw: RawHeader[] = [
      t("tag", "a"),
      ["kafka_dlt-original-partition", int32(5)],
      t("tag", "b"),
      ["sig", Buffer.from([0xff, 0x00])],
      t("tag", "c"),
      t("__proto__", "x"),
    ];
    const json = headersToJson(raw);
    expect(json).toEqual({
      tag: ["a", "b", "c"],
      "kafka_dlt-original-partition": { base64: "AAAABQ==" },
      sig: { base64: "/wA=" },
      ["__proto__"]: "x",
    });
    expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
    const back = jsonToHeaders(json).map(([n, v]) => [n, v.toString("hex")]);
    expect(back).toEqual([
      ["tag", "61"],
      ["tag", "62"],
      ["tag", "63"],
      ["kafka_dlt-original-partition", "00000005"],
      ["sig", "ff00"],
      ["__proto__", "78"],
    ]);
  });

  it("tells the dead-letter context headers from the record's own", () => {
    expect(["kafka_dlt-exception-message", "__connect.errors.topic", "traceparent", "kafka_dltx"].map(isDlqContextHeader)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
