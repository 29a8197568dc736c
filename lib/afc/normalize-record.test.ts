import { describe, expect, it } from "vitest";
import { NO_REASON_GIVEN, normalizeAfcRecord, normalizeCapturedTap, normalizeDeadLetteredTap } from "./normalize-record";
import { afcIssuesOf } from "../rules/match-rule";
import type { NewDeadLetter } from "../vocabulary/record";
import { eventHash } from "./hash";
import { parseLossless } from "../json/lossless";

const now = new Date("2024-05-02T00:00:00.000Z");
const HASH = "a".repeat(64);
const BAD_TAP = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":"275","tap_timestamp":"2024-05-01T08:30:00Z"}';

function normalize(text: string, maxRetries?: number) {
  return normalizeAfcRecord(parseLossless(text), text, { now, maxRetries });
}

function record(fields: string): string {
  return `{"kind":"afc",${fields}}`;
}

function okRecord(text: string, maxRetries?: number) {
  const result = normalize(text, maxRetries);
  if (!result.ok) throw new Error(`rejected: ${JSON.stringify(result.errors)}`);
  return result.record;
}

describe("normalizeAfcRecord: a full producer record is taken verbatim", () => {
  const text = record(
    `"source":"gates-east","raw_payload":${BAD_TAP},"failure_reason":"fare_amount_cents: producer wording",` +
      `"failure_class":"transient_schema","event_hash":"${HASH}","retry_count":1,"first_seen_utc":"2024-05-01T09:00:00+01:00"`,
  );

  it("stores every given field as given", () => {
    const r = okRecord(text);
    expect(r).toEqual({
      kind: "afc",
      source: "gates-east",
      idempotencyKey: HASH,
      entityKey: "dev-1",
      eventId: "evt-1",
      deviceId: "dev-1",
      sourceMessageId: null,
      observedAt: new Date("2024-05-01T08:30:00Z"),
      observedAtExact: "2024-05-01T08:30:00.000000Z",
      firstSeenAt: new Date("2024-05-01T08:00:00Z"),
      rawEnvelope: text,
      payload: { event_id: "evt-1", device_id: "dev-1", fare_amount_cents: "275", tap_timestamp: "2024-05-01T08:30:00Z" },
      failureReason: "fare_amount_cents: producer wording",
      failureClass: "transient_schema",
      classReason: "reported by producer",
      replayCount: 1,
      spatial: null,
    });
  });

  it("never recomputes a given hash, even when it differs from ours", () => {
    expect(okRecord(text).idempotencyKey).not.toBe(eventHash(parseLossless(BAD_TAP)));
  });
});

describe("normalizeAfcRecord: computes what is missing", () => {
  it("fills reason, class, hash, first_seen and source from the minimal record", () => {
    const r = okRecord(record(`"raw_payload":${BAD_TAP}`));
    expect(r.failureReason).toBe("fare_amount_cents: Expected integer, received string");
    expect(r.failureClass).toBe("transient_schema");
    expect(r.classReason).toBeNull();
    expect(r.idempotencyKey).toBe(eventHash(parseLossless(BAD_TAP)));
    expect(r.firstSeenAt).toEqual(now);
    expect(r.source).toBe("unknown");
    expect(r.replayCount).toBe(0);
  });

  it("treats null optional fields as absent (Python None)", () => {
    const r = okRecord(
      record(
        `"raw_payload":${BAD_TAP},"source":null,"failure_reason":null,"failure_class":null,"event_hash":null,"retry_count":null,"first_seen_utc":null`,
      ),
    );
    expect(r.failureReason).toBe("fare_amount_cents: Expected integer, received string");
    expect(r.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
    expect(r.source).toBe("unknown");
  });

  it("hashes from the number lexemes (275.0 ≠ 275), as the producers do", () => {
    const a = okRecord(record(`"raw_payload":{"event_id":"e","device_id":"d","fare_amount_cents":275.0,"x":1}`));
    const b = okRecord(record(`"raw_payload":{"event_id":"e","device_id":"d","fare_amount_cents":275,"x":1}`));
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
    expect(a.payload).toEqual(b.payload);
  });

  it("parses a raw_payload stored as a JSON string", () => {
    const inner = JSON.stringify(BAD_TAP);
    const r = okRecord(record(`"raw_payload":${inner}`));
    expect(r.payload).toEqual(JSON.parse(BAD_TAP));
    expect(r.idempotencyKey).toBe(eventHash(parseLossless(BAD_TAP)));
    expect(r.failureReason).toBe("fare_amount_cents: Expected integer, received string");
    expect(r.eventId).toBe("evt-1");
  });

  it("reads a raw_payload string as Python's json.loads would, NaN included (json.dumps writes a nan fare so)", () => {
    // tests/fixtures/afc/hash-vectors.json, "python constant NaN fare" (computed by CPython)
    const inner = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":NaN,"tap_timestamp":"2024-05-01T08:30:00Z"}';
    const r = okRecord(record(`"raw_payload":${JSON.stringify(inner)}`));
    expect(r.idempotencyKey).toBe("2c40149c58401a06955ea46bd0a33535c4c3377c2f21aba06d2141a9c96f4280");
    expect(r.failureReason).toBe("fare_amount_cents: Expected integer, received float");
    expect(r.failureClass).toBe("transient_schema");
  });

  it("keeps a payload that is not an object as poison, with no computed hash", () => {
    const r = okRecord(record(`"raw_payload":"not json at all"`));
    expect(r.failureClass).toBe("poison");
    expect(r.classReason).toBe("payload is not an object (string)");
    expect(r.failureReason).toBe("(root): Expected object, received string");
    expect(r.idempotencyKey).toBeNull();
    expect(r.payload).toBe("not json at all");
    expect(r.entityKey).toBeNull();
  });

  it("keeps the producer's hash even for a non-object payload", () => {
    expect(okRecord(record(`"raw_payload":[1,2],"event_hash":"${HASH}"`)).idempotencyKey).toBe(HASH);
  });

  it("classifies missing ids as poison, overriding a producer's transient class", () => {
    const r = okRecord(record(`"raw_payload":{"device_id":"d"},"failure_class":"transient_schema"`));
    expect(r.failureClass).toBe("poison");
    expect(r.classReason).toBe("missing event_id");
    expect(r.failureReason).toBe("event_id: Required; fare_amount_cents: Required; tap_timestamp: Required");
  });

  it("exhausts at retry_count >= maxRetries", () => {
    const r3 = okRecord(record(`"raw_payload":${BAD_TAP},"retry_count":3,"failure_class":"transient_schema"`));
    expect(r3.failureClass).toBe("poison");
    // n = validation errors of the failing payload (BAD_TAP has one: the string fare)
    expect(r3.classReason).toBe("exhausted retries: 1 errors");
    expect(r3.replayCount).toBe(3);
    const r2 = okRecord(record(`"raw_payload":${BAD_TAP},"retry_count":2`));
    expect(r2.failureClass).toBe("transient_schema");
    const twoErrors = BAD_TAP.replace("}", ',"battery_pct":3}');
    expect(okRecord(record(`"raw_payload":${twoErrors},"retry_count":2`), 2).classReason).toBe("exhausted retries: 2 errors");
  });

  it("accepts an integral float retry_count lexeme", () => {
    expect(okRecord(record(`"raw_payload":${BAD_TAP},"retry_count":1.0`)).replayCount).toBe(1);
  });

  it("stores a placeholder reason when none is given and the payload passes the gate", () => {
    const good = '{"event_id":"e","device_id":"d","fare_amount_cents":1,"tap_timestamp":"2024-05-01T08:30:00Z"}';
    const r = okRecord(record(`"raw_payload":${good}`));
    expect(r.failureReason).toBe(NO_REASON_GIVEN);
    expect(r.failureClass).toBe("transient_schema");
  });

  it("falls back to first_seen for observedAt when tap_timestamp is unusable", () => {
    const r = okRecord(
      record(`"raw_payload":{"event_id":"e","device_id":"d","tap_timestamp":"soon"},"first_seen_utc":"2024-05-01T07:00:00Z"`),
    );
    expect(r.observedAt).toEqual(new Date("2024-05-01T07:00:00Z"));
    expect(okRecord(record(`"raw_payload":{"event_id":"e"}`)).observedAt).toEqual(now);
  });

  it("reads first_seen_utc as Python producers write it: naive utcnow().isoformat(), str(datetime), lower-case t/z", () => {
    const tap = `"raw_payload":{"event_id":"e","device_id":"d"}`;
    expect(okRecord(record(`${tap},"first_seen_utc":"2024-05-01T07:00:00.123456"`)).firstSeenAt).toEqual(
      new Date("2024-05-01T07:00:00.123Z"),
    );
    expect(okRecord(record(`${tap},"first_seen_utc":"2024-05-01 08:00:00+01:00"`)).firstSeenAt).toEqual(new Date("2024-05-01T07:00:00Z"));
    expect(okRecord(record(`${tap},"first_seen_utc":"2024-05-01t07:00:00z"`)).firstSeenAt).toEqual(new Date("2024-05-01T07:00:00Z"));
  });

  it("takes a lower-case RFC 3339 tap_timestamp as the observation time", () => {
    const r = okRecord(record(`"raw_payload":{"event_id":"e","device_id":"d","tap_timestamp":"2024-05-01t07:00:00z"}`));
    expect(r.observedAt).toEqual(new Date("2024-05-01T07:00:00Z"));
  });

  it("keeps unsafe numbers exact (as strings) in the working payload", () => {
    const r = okRecord(record(`"raw_payload":{"event_id":"e","device_id":"d","fare_amount_cents":12345678901234567890123}`));
    expect(r.payload).toEqual({ event_id: "e", device_id: "d", fare_amount_cents: "12345678901234567890123" });
  });

  it("tolerates unknown envelope keys", () => {
    expect(normalize(record(`"raw_payload":${BAD_TAP},"producer_version":"1.2"`)).ok).toBe(true);
  });
});

describe("normalizeAfcRecord: rejects structurally unusable records", () => {
  it.each([
    ["not an object", "[1]", [{ path: "(root)", message: "Expected object, received array" }]],
    ["kind missing", `{"raw_payload":{}}`, [{ path: "kind", message: "Required" }]],
    ["kind wrong", `{"kind":"spatial","raw_payload":{}}`, [{ path: "kind", message: 'Invalid literal value, expected "afc"' }]],
    ["raw_payload missing", record(`"source":"s"`), [{ path: "raw_payload", message: "Required" }]],
    [
      "event_hash too short",
      record(`"raw_payload":{},"event_hash":"abc"`),
      [{ path: "event_hash", message: "must be 64 lowercase hex characters (a SHA-256 hexdigest)" }],
    ],
    [
      "event_hash uppercase",
      record(`"raw_payload":{},"event_hash":"${"A".repeat(64)}"`),
      [{ path: "event_hash", message: "must be 64 lowercase hex characters (a SHA-256 hexdigest)" }],
    ],
    [
      "event_hash number",
      record(`"raw_payload":{},"event_hash":7`),
      [{ path: "event_hash", message: "must be 64 lowercase hex characters (a SHA-256 hexdigest)" }],
    ],
    [
      "failure_class unknown",
      record(`"raw_payload":{},"failure_class":"transient"`),
      [{ path: "failure_class", message: "Invalid enum value. Expected 'transient_schema' | 'poison', received 'transient'" }],
    ],
    [
      "retry_count negative",
      record(`"raw_payload":{},"retry_count":-1`),
      [{ path: "retry_count", message: "Number must be greater than or equal to 0" }],
    ],
    [
      "retry_count float",
      record(`"raw_payload":{},"retry_count":1.5`),
      [{ path: "retry_count", message: "Expected integer, received float" }],
    ],
    [
      "retry_count string",
      record(`"raw_payload":{},"retry_count":"1"`),
      [{ path: "retry_count", message: "Expected integer, received string" }],
    ],
    [
      "first_seen_utc not RFC 3339",
      record(`"raw_payload":{},"first_seen_utc":"2024-05-01 08:00"`),
      [{ path: "first_seen_utc", message: "Invalid datetime" }],
    ],
    ["source not a string", record(`"raw_payload":{},"source":5`), [{ path: "source", message: "Expected string, received number" }]],
  ])("%s", (_name, text, errors) => {
    expect(normalize(text)).toEqual({ ok: false, errors });
  });

  it("reports every problem at once, in field order", () => {
    const result = normalize(`{"kind":"x","retry_count":-1,"event_hash":"z"}`);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((e) => e.path)).toEqual(["kind", "raw_payload", "event_hash", "retry_count"]);
  });
});

describe("normalizeCapturedTap", () => {
  it("lets a valid tap pass", () => {
    const good = '{"event_id":"e","device_id":"d","fare_amount_cents":1,"tap_timestamp":"2024-05-01T08:30:00Z"}';
    expect(normalizeCapturedTap(parseLossless(good), good, { now })).toEqual({ passed: true });
  });

  it("dead-letters a failing tap with the gate's reason and its computed hash", () => {
    const text = '{"event_id":"e","device_id":"d","fare_amount_cents":-1,"tap_timestamp":"2024-05-01T08:30:00Z","battery_pct":3}';
    const result = normalizeCapturedTap(parseLossless(text), text, { now, source: "validator-7" });
    expect(result).toEqual({
      passed: false,
      record: {
        kind: "afc",
        source: "validator-7",
        idempotencyKey: eventHash(parseLossless(text)),
        entityKey: "d",
        eventId: "e",
        deviceId: "d",
        sourceMessageId: null,
        observedAt: new Date("2024-05-01T08:30:00Z"),
        observedAtExact: "2024-05-01T08:30:00.000000Z",
        firstSeenAt: now,
        rawEnvelope: text,
        payload: JSON.parse(text),
        failureReason: "fare_amount_cents: Number must be greater than or equal to 0; battery_pct: Unrecognized key",
        failureClass: "transient_schema",
        classReason: null,
        replayCount: 0,
        spatial: null,
        tapIssues: [
          { field: "fare_amount_cents", entry: "fare_amount_cents: Number must be greater than or equal to 0" },
          { field: "battery_pct", entry: "battery_pct: Unrecognized key" },
        ],
      },
    });
  });

  it("defaults the source and observes at now without a usable timestamp", () => {
    const text = '{"device_id":"d"}';
    const result = normalizeCapturedTap(parseLossless(text), text, { now });
    expect(result.passed).toBe(false);
    if (result.passed) return;
    expect(result.record.source).toBe("unknown");
    expect(result.record.observedAt).toEqual(now);
    expect(result.record.failureClass).toBe("poison");
    expect(result.record.classReason).toBe("missing event_id");
  });
});

describe("the gate's issues, kept for the triage rules, are the stored payload's", () => {
  // Each path that runs the gate; the rules must see what afcIssuesOf(payload) — what a dry run and an apply read
  // from the stored row — gives, or no issues at all (then the rules validate the stored payload themselves).
  const paths: [string, (tapText: string) => NewDeadLetter][] = [
    ["a posted record without a failure_reason", (tap) => okRecord(record(`"raw_payload":${tap}`))],
    ["a posted record whose raw_payload is the tap's text", (tap) => okRecord(record(`"raw_payload":${JSON.stringify(tap)}`))],
    [
      "a tap caught at the capture boundary",
      (tap) => {
        const caught = normalizeCapturedTap(parseLossless(tap), tap, { now });
        if (caught.passed) throw new Error("passed the gate");
        return caught.record;
      },
    ],
    ["a tap a broker dead-lettered", (tap) => normalizeDeadLetteredTap(parseLossless(tap), tap, { now, source: "gates", reason: "nack" })],
  ];
  const taps = [
    BAD_TAP,
    '{"event_id":"e","device_id":"d","fare_amount_cents":275.5,"tap_timestamp":"2024-05-01T08:30:00Z","battery_pct":12}',
    '{"event_id":"e","device_id":"d","fare_amount_cents":275.0,"tap_timestamp":"2024-05-01T08:30:00"}',
    '{"event_id":" ","device_id":null,"fare_amount_cents":-1,"tap_timestamp":[1,2e400],"card_pan":{"x":1e400}}',
    '{"event_id":"e","device_id":"d","fare_amount_cents":1e400,"tap_timestamp":"2024-05-01T08:30:00Z"}',
    '{"event_id":"e","device_id":"d","fare_amount_cents":123456789012345678901234567890,"tap_timestamp":"x"}',
    '{"event_id":"e","device_id":"d","fare_amount_cents":0.1000000000000000000001,"tap_timestamp":"x"}',
  ];
  for (const [path, normalized] of paths) {
    it(path, () => {
      let kept = 0;
      for (const tap of taps) {
        const r = normalized(tap);
        if (r.tapIssues === undefined) continue;
        kept++;
        expect(r.tapIssues, tap).toEqual(afcIssuesOf(r.payload));
      }
      // the safe taps keep theirs; the three with unsafe lexemes at the top level do not
      expect(kept).toBe(taps.length - 3);
    });
  }
});
