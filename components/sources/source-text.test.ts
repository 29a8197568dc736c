import { describe, expect, it } from "vitest";
import { addedNotice, conditionOf, duration, optionsSummary, pullSummary } from "./source-text";

const state = {
  connected: null,
  waiting: null,
  waitingAt: null,
  lastPullAt: null,
  lastError: null,
  lastErrorAt: null,
  failures: 0,
  nextAttemptAt: null,
  pulledToday: 0,
  totals: { pulled: 0, created: 0, duplicates: 0, unreadable: 0 },
  pulling: false,
};

describe("optionsSummary", () => {
  it("names where each type reads its dead letters", () => {
    expect(optionsSummary("rabbitmq", { queue: "orders.dlq" })).toEqual(["queue orders.dlq"]);
    expect(optionsSummary("nats", { stream: "ORDERS", ackWaitMs: 30_000 })).toEqual(["stream ORDERS", "every consumer", "ack wait 30 s"]);
    expect(optionsSummary("nats", { stream: "ORDERS", consumer: "billing", ackWaitMs: 500 })).toContain("consumer billing");
  });

  it("names a Kafka source's topic and group", () => {
    expect(optionsSummary("kafka", { topic: "orders.DLT", group: "redrive" })).toEqual(["topic orders.DLT", "group redrive"]);
  });

  it("tells Redis's claim mode from its dead-letter-stream mode", () => {
    const claim = { stream: "orders", group: "workers", minIdleMs: 60_000, maxDeliveries: 3, consumer: "redrive", field: "body" };
    expect(optionsSummary("redis", claim)).toEqual(["stream orders", "group workers", "claims after 3 deliveries, idle 60 s"]);
    expect(optionsSummary("redis", { ...claim, dlqStream: "orders:dlq", dlqGroup: "redrive", field: "payload" })).toEqual([
      "dead-letter stream orders:dlq (group redrive)",
      "back to orders",
      "body field payload",
    ]);
  });

  it("says where an SQS source sends dead letters back and how long it hides what it took", () => {
    expect(optionsSummary("sqs", { region: "eu-west-1", visibilityTimeoutSeconds: 60 })).toEqual([
      "region eu-west-1",
      "back to the queue SQS names",
      "visibility 60 s",
    ]);
    expect(optionsSummary("sqs", { sourceQueueUrl: "http://h/1/q", visibilityTimeoutSeconds: 600 })).toEqual([
      "back to http://h/1/q unless SQS names the queue",
      "visibility 10 min",
    ]);
  });

  it("does not fail on options it cannot read", () => {
    expect(optionsSummary("rabbitmq", {})).toEqual(["queue ?"]);
  });
});

describe("duration", () => {
  it("says milliseconds, seconds, whole minutes or whole hours", () => {
    expect([duration(500), duration(1500), duration(60_000), duration(90_000), duration(120_000), duration(43_200_000)]).toEqual([
      "500 ms",
      "1.5 s",
      "60 s",
      "90 s",
      "2 min",
      "12 h",
    ]);
  });
});

describe("conditionOf", () => {
  it("is paused whatever the last attempt found, else what it found", () => {
    expect(conditionOf({ enabled: false, state: { ...state, connected: true } })).toBe("paused");
    expect(conditionOf({ enabled: true, state })).toBe("never tried");
    expect(conditionOf({ enabled: true, state: { ...state, connected: true } })).toBe("connected");
    expect(conditionOf({ enabled: true, state: { ...state, connected: false } })).toBe("error");
  });
});

describe("pullSummary", () => {
  it("counts unreadable bodies among the new records", () => {
    expect(pullSummary({ pulled: 3, created: 2, duplicates: 1, unreadable: 1 })).toBe(
      "3 pulled: 2 new records (1 unreadable, kept as poison), 1 already stored",
    );
    expect(pullSummary({ pulled: 1, created: 1, duplicates: 0, unreadable: 0 })).toBe("1 pulled: 1 new record, 0 already stored");
    expect(pullSummary({ pulled: 6, created: 0, duplicates: 1, unreadable: 0, failedAgain: 5 })).toBe(
      "6 pulled: 0 new records, 5 failed again after replay (back in triage), 1 already stored",
    );
    expect(pullSummary({ pulled: 0, created: 0, duplicates: 0, unreadable: 0 })).toBe("Nothing was waiting.");
  });
});

describe("addedNotice", () => {
  it("warns with the broker's answer when the test at adding failed", () => {
    const failed = { ...state, connected: false, lastError: "RabbitMQ refused user 'guest' (ACCESS-REFUSED)" };
    expect(addedNotice({ name: "orders", enabled: true, state: failed })).toEqual({
      ok: false,
      title: "Source orders added, but the broker test failed",
      description:
        "RabbitMQ refused user 'guest' (ACCESS-REFUSED). Workers keep trying, less and less often; its card shows the last error.",
    });
  });

  it("says it was added when the broker answered, or when it is paused", () => {
    expect(addedNotice({ name: "orders", enabled: true, state: { ...state, connected: true } })).toMatchObject({
      ok: true,
      title: "Source orders added",
    });
    expect(addedNotice({ name: "orders", enabled: false, state }).description).toBe("It is paused.");
  });
});
