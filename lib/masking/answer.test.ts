import { describe, expect, it } from "vitest";
import { maskAnswer } from "./answer";
import { DEFAULT_MASK_RULES, maskRules } from "./rules";

const PAN = "4111111111111111";
const MASKED = "••••••••••••1111";
const rules = DEFAULT_MASK_RULES;

describe("maskAnswer", () => {
  it("masks a card number in any string field, at any depth, and in object keys", () => {
    const answer = {
      id: "42",
      eventId: PAN,
      items: [{ key: `sp-${PAN}`, analysis: { reason: `Ring Self-intersection[${PAN} 2]` } }],
      payload: { [PAN]: { note: "4111 1111 1111 1111 12/27" } },
    };
    expect(maskAnswer(answer, rules)).toEqual({
      id: "42",
      eventId: MASKED,
      items: [{ key: `sp-${MASKED}`, analysis: { reason: `Ring Self-intersection[${MASKED} 2]` } }],
      payload: { [MASKED]: { note: `${MASKED} 12/27` } },
    });
  });

  it("leaves numbers, booleans, nulls, dates and text without card numbers as they are (the same objects)", () => {
    const at = new Date("2026-12-01T00:00:00Z");
    // 1764547200014 passes Luhn: a 13-digit integer is an epoch-millisecond time in an answer, not a card.
    const answer = { count: 12, observedMs: 1764547200014, ok: true, none: null, at, hash: "ab".repeat(32), lon: 4111111111111112 };
    const out = maskAnswer(answer, rules);
    expect(out).toBe(answer);
    expect(out.at).toBe(at);
  });

  it("masks an integer of 14–19 digits that passes Luhn (a coordinate set to a card number)", () => {
    expect(maskAnswer({ location: [4111111111111111, 2] }, rules)).toEqual({ location: [MASKED, 2] });
  });

  it("is idempotent: masked text has no card number left", () => {
    const once = maskAnswer({ a: `card ${PAN}` }, rules);
    expect(maskAnswer(once, rules)).toBe(once);
  });

  it("keeps a __proto__ key an own property", () => {
    const input = JSON.parse(`{"__proto__": "${PAN}"}`) as Record<string, unknown>;
    const out = maskAnswer(input, rules);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe(MASKED);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("does nothing when the Luhn rule is off", () => {
    const answer = { eventId: PAN };
    expect(maskAnswer(answer, maskRules(["card*"], false))).toBe(answer);
  });
});

describe("ids an answer hands out", () => {
  it("never masks a UUID whose first groups are all digits", () => {
    // 12345678-1234-4236 is 16 digits joined by dashes, and passes Luhn
    const id = "12345678-1234-4236-8234-123456789abc";
    expect(maskAnswer({ jobId: id, requestId: `req ${id}` }, rules)).toEqual({ jobId: id, requestId: `req ${id}` });
  });
});

describe("digests an answer hands out", () => {
  it("never masks a SHA-256 in hex that starts or ends with a Luhn-valid digit run", () => {
    const starts = `4111111111111111${"ab".repeat(24)}`;
    const ends = `${"ab".repeat(24)}4111111111111111`;
    expect(maskAnswer({ key: starts, digest: ends }, rules)).toEqual({ key: starts, digest: ends });
  });

  it("still masks a card number glued to a short word", () => {
    expect(maskAnswer({ note: "card4111111111111111" }, rules)).toEqual({ note: `card${MASKED}` });
  });
});
