import { describe, expect, it } from "vitest";
import { isRetryable, KafkaSourceError, sourceError } from "./errors";

const target = {
  brokers: ["k1:9092"],
  tls: false,
  sasl: null,
  display: "kafka://k1:9092",
  secrets: ["s3cret", "kafka://u:s3cret@k1:9092"],
};

/** kafkajs's errors as it builds them: a class name, `retriable`, a protocol error's `type`, a cause when it gave up. */
function kafkaJs(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(Object.defineProperty(new Error(message), "name", { value: name }), { retriable: true, ...extra });
}

describe("sourceError", () => {
  it("says what was being done, where, and what kafkajs said, without the password", () => {
    const e = sourceError(kafkaJs("KafkaJSConnectionError", "Connection error: s3cret"), target, "connecting");
    expect(e).toBeInstanceOf(KafkaSourceError);
    expect(e).toMatchObject({ code: "unreachable", message: "connecting on kafka://k1:9092 failed: Connection error: ***" });
  });

  it("reads the error kafkajs gave up on, and classifies refusals", () => {
    const gaveUp = kafkaJs("KafkaJSNumberOfRetriesExceeded", "retries", {
      retriable: false,
      cause: kafkaJs("KafkaJSProtocolError", "This server does not host this topic-partition", { type: "UNKNOWN_TOPIC_OR_PARTITION" }),
    });
    expect(sourceError(gaveUp, target, "x")).toMatchObject({ code: "not_found", message: expect.stringContaining("does not host") });
    expect(sourceError(kafkaJs("KafkaJSSASLAuthenticationError", "SASL PLAIN failed"), target, "x").message).toMatch(/check the user name/);
    expect(sourceError(kafkaJs("KafkaJSProtocolError", "denied", { type: "TOPIC_AUTHORIZATION_FAILED" }), target, "x").code).toBe(
      "auth_failed",
    );
  });
});

describe("isRetryable", () => {
  it("retries a lost connection or what kafkajs calls retriable, never a refusal", () => {
    expect(isRetryable(kafkaJs("KafkaJSConnectionError", "x"))).toBe(true);
    expect(isRetryable(kafkaJs("KafkaJSProtocolError", "leader moved", { type: "NOT_LEADER_FOR_PARTITION" }))).toBe(true);
    expect(isRetryable(kafkaJs("KafkaJSProtocolError", "too large", { type: "MESSAGE_TOO_LARGE", retriable: false }))).toBe(false);
    expect(isRetryable(kafkaJs("KafkaJSProtocolError", "denied", { type: "TOPIC_AUTHORIZATION_FAILED", retriable: false }))).toBe(false);
  });
});
