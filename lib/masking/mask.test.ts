import { describe, expect, it } from "vitest";
import { cardSpans, holdsCardNumber, luhnValid, maskDigitRuns, maskJson, maskPan, maskText, MASK, withoutCardNumbers } from "./mask";
import { DEFAULT_MASK_RULES, maskRules, parseMaskKeys } from "./rules";

const PAN = "4111111111111111";
const rules = DEFAULT_MASK_RULES;

describe("luhn", () => {
  it("accepts test PANs and rejects one-digit changes", () => {
    expect(luhnValid(PAN)).toBe(true);
    expect(luhnValid("378282246310005")).toBe(true); // Amex test number
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("")).toBe(false);
    expect(luhnValid("41x1")).toBe(false);
  });
  it("keeps the last four digits", () => {
    expect(maskPan(PAN)).toBe("••••••••••••1111");
  });
});

describe("maskJson", () => {
  it("masks keys by glob, case-insensitively, and PANs anywhere", () => {
    const found: string[] = [];
    const out = maskJson(
      {
        event_id: "tap-1",
        device_id: "gate-01",
        fare_amount_cents: 275,
        card_pan: PAN,
        Card_Token: "tok_abc",
        account_ref: "acct-42",
        ACCOUNTS: { primary: "x", n: 7, ok: true },
        pan: 12345,
        token: null,
        note: `paid with ${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}`,
        nested: [{ any: PAN }],
        tokens: "not a masked key",
      },
      rules,
      found,
    );
    expect(out).toEqual({
      event_id: "tap-1",
      device_id: "gate-01",
      fare_amount_cents: 275,
      card_pan: "••••••••••••1111",
      Card_Token: MASK,
      account_ref: MASK,
      ACCOUNTS: { primary: MASK, n: MASK, ok: true },
      pan: MASK,
      token: null,
      note: "paid with ••••••••••••1111",
      nested: [{ any: "••••••••••••1111" }],
      tokens: "not a masked key",
    });
    expect(found).toEqual([
      "/card_pan",
      "/Card_Token",
      "/account_ref",
      "/ACCOUNTS/primary",
      "/ACCOUNTS/n",
      "/pan",
      "/note",
      "/nested/0/any",
    ]);
  });

  it("masks a PAN given as a number and leaves ordinary numbers and coordinates alone", () => {
    expect(maskJson({ n: 4111111111111111, coords: [[-122.41941551234567, 37.7749]], ts: 1764547200001 }, rules)).toEqual({
      n: "••••••••••••1111",
      coords: [[-122.41941551234567, 37.7749]],
      ts: 1764547200001,
    });
  });

  it("masks inside JSON text held in a string (payloads stored as text)", () => {
    const out = maskJson({ raw_payload: JSON.stringify({ card_pan: PAN, fare: 1 }) }, rules) as { raw_payload: string };
    expect(JSON.parse(out.raw_payload)).toEqual({ card_pan: "••••••••••••1111", fare: 1 });
  });

  it("follows configured keys", () => {
    const custom = maskRules(parseMaskKeys(" iban , secret* "), false);
    expect(maskJson({ iban: "DE89", secret_x: 1, card_pan: PAN }, custom)).toEqual({ iban: MASK, secret_x: MASK, card_pan: PAN });
  });

  it("keeps a __proto__ key as data", () => {
    const input = JSON.parse('{"__proto__": {"card": "1"}}') as { [k: string]: string };
    const out = maskJson(input, rules) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe("maskText", () => {
  it("changes only the masked tokens: whitespace, order, duplicates and lexemes stay", () => {
    const raw = `{"kind":"afc", "raw_payload": {"fare_amount_cents": 275.0,\n  "card_pan":"${PAN}", "account_ref" : "acct-1", "x": 1e3, "account_ref": 5},"retry_count":0}`;
    const found: string[] = [];
    const out = maskText(raw, rules, found);
    expect(out).toBe(
      `{"kind":"afc", "raw_payload": {"fare_amount_cents": 275.0,\n  "card_pan":"••••••••••••1111", "account_ref" : "•••", "x": 1e3, "account_ref": "•••"},"retry_count":0}`,
    );
    expect(found).toEqual(["/raw_payload/card_pan", "/raw_payload/account_ref", "/raw_payload/account_ref"]);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
  });

  it("masks PAN lexemes and escaped strings, and returns the same text when nothing matches", () => {
    expect(maskText(`[${PAN}, "a\\"b", 12]`, rules)).toBe('["••••••••••••1111", "a\\"b", 12]');
    const plain = '{ "a" : [1, 2.5, true, null, "x\\u0041"] }';
    expect(maskText(plain, rules)).toBe(plain);
  });

  it("falls back to the free-text rule for text that is not JSON", () => {
    expect(maskText(`{"card_pan": ${PAN}`, rules)).toBe('{"card_pan": ••••••••••••1111');
    expect(maskDigitRuns("id 2026-11-01 and 4111-1111-1111-1111")).toBe("id 2026-11-01 and ••••••••••••1111");
    // A hex hash holding a Luhn-valid run is left alone; the same run on its own, or after a colon, is masked.
    const hash = "eeb9da4111111111111111c7331a64e";
    expect(maskDigitRuns(`key ${hash}`)).toBe(`key ${hash}`);
    expect(maskDigitRuns("pan:4111111111111111, x")).toBe("pan:••••••••••••1111, x");
    expect(maskDigitRuns("card 4111111111111111.")).toBe("card ••••••••••••1111.");
  });
});

describe("containsMaskPlaceholder", () => {
  it("finds placeholders anywhere in a document", async () => {
    const { containsMaskPlaceholder } = await import("./mask");
    expect(containsMaskPlaceholder({ a: [1, { b: "••••••••••••1111" }] })).toBe(true);
    expect(containsMaskPlaceholder({ a: MASK })).toBe(true);
    expect(containsMaskPlaceholder({ a: "•", b: 1, c: null })).toBe(false);
    expect(containsMaskPlaceholder({ "•••1111": 1 })).toBe(true);
    expect(containsMaskPlaceholder([[1, 2], [[3, "ok"]], [[4, "••••9"]]])).toBe(true);
    expect(containsMaskPlaceholder({ ring: Array.from({ length: 200_000 }, (_, i) => [i, i]) })).toBe(false);
  });
});

describe("maskText fast path", () => {
  it("leaves text without candidate keys or digit runs untouched, and still finds keys hidden in escapes or nested text", () => {
    const plain = '{"kind":"afc","raw_payload":{"event_id":"e","fare_amount_cents":275}}';
    expect(maskText(plain, rules)).toBe(plain);
    expect(maskText('{"c\\u0061rd_pan":"x"}', rules)).toBe('{"c\\u0061rd_pan":"•••"}');
    expect(maskText('{"raw_payload":"{\\"account_ref\\": \\"a-1\\"}"}', rules)).toBe('{"raw_payload":"{\\"account_ref\\": \\"•••\\"}"}');
    expect(maskRules(["pan"]).keyProbe?.test('{"Pan" : 1}')).toBe(true);
    expect(maskRules(["pan"]).keyProbe?.test('{"span": 1}')).toBe(false);
  });
});

describe("card numbers in free text, as written in the wild (a helper's security review found these in clear)", () => {
  it.each([
    ["issuer declined card 4111111111111111 12/27", "issuer declined card ••••••••••••1111 12/27"],
    ["refund to 4111 1111 1111 1111 0127", "refund to ••••••••••••1111 0127"],
    ["gateway rejected card5500005555555559", "gateway rejected card••••••••••••5559"],
    ["pan4111111111111111", "pan••••••••••••1111"],
    ["4111.1111.1111.1111", "••••••••••••1111"],
    ["4111_1111_1111_1111", "••••••••••••1111"],
    [
      "cards 4111111111111111 and 5555-5555-5555-4444 and 378282246310005",
      "cards ••••••••••••1111 and ••••••••••••4444 and •••••••••••0005",
    ],
    ["cvv 123 for 4012888888881881", "cvv 123 for ••••••••••••1881"],
  ])("%s", (text, masked) => {
    expect(maskDigitRuns(text)).toBe(masked);
    expect(maskText(JSON.stringify({ memo: text }), rules)).toBe(JSON.stringify({ memo: masked }));
  });

  it.each([
    "event 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", // a SHA-256 with long digit runs
    "POINT (174.4111111111111111 -36.8)",
    "lat 12.4111.1111.1111.1111", // a fraction, even when it looks grouped
    "2026-11-01 10:00:00 order 12345",
  ])("leaves %s alone", (text) => {
    expect(maskDigitRuns(text)).toBe(text);
  });
});

describe("digit runs", () => {
  it("never takes the fraction of a number for a card number", () => {
    const wkt = "POINT (174.4111111111111111 -36.8)"; // the fraction passes Luhn
    expect(maskDigitRuns(wkt)).toBe(wkt);
    const raw = '{"coordinates":[174.4111111111111111,-36.8]}';
    expect(maskText(raw, rules)).toBe(raw);
  });
});

describe("epoch-millisecond times are not card numbers", () => {
  it.each([
    "producer-msg-1796571817221-1", // the run with its suffix passes Luhn as 14 digits
    "producer-msg-1796571817221",
    "order 1700000000012 done", // 13 digits, Luhn-valid, starting with 1
  ])("leaves %s alone", (text) => {
    expect(maskDigitRuns(text)).toBe(text);
    expect(maskText(JSON.stringify({ id: text }), rules)).toBe(JSON.stringify({ id: text }));
  });

  it("leaves a 13-digit integer starting with 1 alone, and keeps every real card masked", () => {
    expect(luhnValid("1700000000012")).toBe(true);
    expect(maskJson({ at: 1700000000012 }, rules)).toEqual({ at: 1700000000012 });
    expect(maskDigitRuns("visa 4222222222222")).toBe("visa •••••••••2222"); // a 13-digit Visa test number
    expect(maskDigitRuns("uatp 135410014004955")).toBe("uatp •••••••••••4955"); // 15 digits starting with 1
    expect(maskDigitRuns("1796571817221-4111111111111111")).toBe("1796571817221-••••••••••••1111");
  });
});

describe("cardSpans, the one card-like definition", () => {
  it("is what masking hides, what an index leaves out and what a search term may not hold", () => {
    const text = "paid 4111 1111 1111 1111 at 1796571817221";
    expect(cardSpans(text)).toEqual([{ start: 5, end: 24, digits: PAN }]);
    expect(maskDigitRuns(text)).toBe("paid ••••••••••••1111 at 1796571817221");
    expect(withoutCardNumbers(text)).toBe("paid   at 1796571817221");
    expect(holdsCardNumber(text)).toBe(true);
    expect(holdsCardNumber("producer-msg-1796571817221-1")).toBe(false);
    expect(holdsCardNumber("411111111111")).toBe(false);
  });
});
