import { describe, expect, it } from "vitest";
import { MAX_RETRIES, NO_FAILURES, classifyTap, recordFailure, type FailureState, reasonErrorCount } from "./classify";
import { parseLossless } from "../json/lossless";

describe("classifyTap", () => {
  it("is transient_schema when both ids are usable, whatever else is wrong", () => {
    expect(classifyTap(parseLossless('{"event_id":"e","device_id":"d","fare_amount_cents":"x"}'))).toEqual({
      failureClass: "transient_schema",
      classReason: null,
    });
  });

  it.each([
    ['{"device_id":"d"}', "missing event_id"],
    ['{"event_id":null,"device_id":"d"}', "missing event_id"],
    ['{"event_id":"e"}', "missing device_id"],
    ['{"event_id":"","device_id":"d"}', "blank event_id"],
    ['{"event_id":" \\t","device_id":"d"}', "blank event_id"],
    ['{"event_id":42,"device_id":"d"}', "event_id is not a string (number)"],
    ['{"event_id":"e","device_id":["d"]}', "device_id is not a string (array)"],
    ["{}", "missing event_id; missing device_id"],
    ["[1]", "payload is not an object (array)"],
    ['"text"', "payload is not an object (string)"],
  ])("%s → poison (%s)", (text, classReason) => {
    expect(classifyTap(parseLossless(text))).toEqual({ failureClass: "poison", classReason });
  });
});

describe("recordFailure", () => {
  const t = (minute: number) => new Date(Date.UTC(2024, 4, 1, 8, minute));

  it("records the first failure without counting a retry", () => {
    const s = recordFailure(NO_FAILURES, { reason: "first", at: t(0) });
    expect(s).toEqual({
      firstReason: "first",
      history: [],
      retryCount: 0,
      failureClass: "transient_schema",
      classReason: null,
    });
  });

  it("keeps the first reason forever and appends every later one, then exhausts at maxRetries", () => {
    let s = recordFailure(NO_FAILURES, { reason: "r1", at: t(0) });
    s = recordFailure(s, { reason: "r2", at: t(1) });
    s = recordFailure(s, { reason: "r3", at: t(2) });
    expect(s.failureClass).toBe("transient_schema");
    expect(s.retryCount).toBe(2);
    s = recordFailure(s, { reason: "r4", at: t(3) });
    expect(s).toEqual({
      firstReason: "r1",
      history: [
        { at: t(1), reason: "r2", attempt: 2 },
        { at: t(2), reason: "r3", attempt: 3 },
        { at: t(3), reason: "r4", attempt: 4 },
      ],
      retryCount: MAX_RETRIES,
      failureClass: "poison",
      // n counts the validation errors of the failure that used up the budget ("r4" is one reason)
      classReason: "exhausted retries: 1 errors",
    });
  });

  it("keeps recording after poison without changing the class or its reason", () => {
    const poisoned: FailureState = {
      firstReason: "r1",
      history: [],
      retryCount: 0,
      failureClass: "poison",
      classReason: "missing event_id",
    };
    const s = recordFailure(poisoned, { reason: "r2", at: t(5) }, 1);
    expect(s.failureClass).toBe("poison");
    expect(s.classReason).toBe("missing event_id");
    expect(s.history).toEqual([{ at: t(5), reason: "r2", attempt: 2 }]);
    expect(s.firstReason).toBe("r1");
  });

  it("continues from a producer's retry_count", () => {
    const fromProducer: FailureState = { ...NO_FAILURES, firstReason: "given", retryCount: 2 };
    const reason = "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key";
    const s = recordFailure(fromProducer, { reason, at: t(9) }, 3);
    expect(s.retryCount).toBe(3);
    expect(s.history).toEqual([{ at: t(9), reason, attempt: 4 }]);
    expect(s.classReason).toBe("exhausted retries: 2 errors");
  });

  it("with maxRetries 0 the first failure is already poison", () => {
    const s = recordFailure(NO_FAILURES, { reason: "only", at: t(0) }, 0);
    expect(s.failureClass).toBe("poison");
    expect(s.classReason).toBe("exhausted retries: 1 errors");
  });

  it("does not mutate its input", () => {
    const before = recordFailure(NO_FAILURES, { reason: "r1", at: t(0) });
    const frozen = Object.freeze({ ...before, history: Object.freeze([...before.history]) });
    const after = recordFailure(frozen, { reason: "r2", at: t(1) });
    expect(frozen.history).toHaveLength(0);
    expect(after.history).toHaveLength(1);
  });

  it("rejects a nonsensical budget", () => {
    expect(() => recordFailure(NO_FAILURES, { reason: "r", at: t(0) }, -1)).toThrow(RangeError);
    expect(() => recordFailure(NO_FAILURES, { reason: "r", at: t(0) }, 1.5)).toThrow(RangeError);
  });
});

describe("reasonErrorCount", () => {
  it("counts the field errors of a gate reason, and any other reason as one", () => {
    expect(reasonErrorCount("fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key")).toBe(2);
    expect(reasonErrorCount("event_id: Required")).toBe(1);
    expect(reasonErrorCount("HTTP 503 from sink; retry later")).toBe(1);
    expect(reasonErrorCount("")).toBe(0);
  });
});
