import { describe, expect, it } from "vitest";
import { maskJson } from "./mask";
import { restoreMasked } from "./restore";
import { maskRules } from "./rules";

const rules = maskRules();
const stored = {
  event_id: "e-1",
  device_id: "gate-7",
  fare_amount_cents: 250,
  card_pan: "4111111111111111",
  account_ref: "acct-99",
  note: "declined card 4111111111111111 at gate",
  tags: [{ card_token: 12345 }],
};
const shown = maskJson(stored, rules) as Record<string, unknown>;

describe("restoreMasked", () => {
  it("puts back every value left as the masked view showed it, and keeps the analyst's other changes", () => {
    expect(shown.card_pan).toMatch(/^•+1111$/);
    const edit = { ...shown, fare_amount_cents: 275 };
    expect(restoreMasked(edit as never, stored, rules)).toEqual({ payload: { ...stored, fare_amount_cents: 275 }, changed: [] });
  });

  it('keeps a "__proto__" key as data (assignment set the prototype and dropped it)', () => {
    const edit = JSON.parse('{"event_id":"e-1","__proto__":{"geometry":null}}') as never;
    const { payload } = restoreMasked(edit, stored, rules);
    expect(Object.keys(payload as object)).toEqual(["event_id", "__proto__"]);
    expect(JSON.stringify(payload)).toBe('{"event_id":"e-1","__proto__":{"geometry":null}}');
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
  });

  it("lets a masked field be removed", () => {
    const { account_ref: _gone, ...edit } = shown;
    const { account_ref: _also, ...expected } = stored;
    expect(restoreMasked(edit as never, stored, rules)).toEqual({ payload: expected, changed: [] });
  });

  it("refuses, by pointer, a placeholder that was changed or moved", () => {
    const edit = { ...shown, card_pan: "•••1112", copied: shown.card_pan };
    expect(restoreMasked(edit as never, stored, rules).changed).toEqual([["card_pan"], ["copied"]]);
  });

  it("names a changed placeholder by the key the analyst was shown, not the card number the stored key holds", () => {
    const keyed = { "4111111111111111": "gold", note: "x" };
    const view = maskJson(keyed, rules) as Record<string, unknown>;
    const shownKey = Object.keys(view).find((k) => k.endsWith("1111"))!;
    expect(shownKey).not.toBe("4111111111111111");
    const { changed, payload } = restoreMasked({ ...view, [shownKey]: "•••x" } as never, keyed, rules);
    expect(changed).toEqual([[shownKey]]);
    expect(JSON.stringify(changed)).not.toContain("4111111111111111");
    expect(Object.keys(payload as object)).toContain("4111111111111111");
  });

  it("restores inside arrays and free text, and takes a typed full value as it is", () => {
    const edit = { ...shown, card_pan: "5500005555555559" };
    const { payload, changed } = restoreMasked(edit as never, stored, rules);
    expect(changed).toEqual([]);
    expect(payload).toMatchObject({ card_pan: "5500005555555559", note: stored.note, tags: [{ card_token: 12345 }] });
  });

  it("refuses placeholders in an array whose length changed (positions no longer match)", () => {
    const two = { cards: [{ card_token: "tok-A" }, { card_token: "tok-B" }] };
    const view = maskJson(two, rules) as { cards: unknown[] };
    expect(restoreMasked({ cards: [view.cards[1]] } as never, two, rules)).toEqual({
      payload: { cards: [{ card_token: "•••" }] },
      changed: [["cards", "0", "card_token"]],
    });
    expect(restoreMasked(view as never, two, rules)).toEqual({ payload: two, changed: [] });
  });

  it("keeps text that held bullets of its own when it was stored", () => {
    const withBullets = { ...stored, note: "paid with ••••1111" };
    const edit = { ...(maskJson(withBullets, rules) as Record<string, unknown>), line: "M7" };
    expect(restoreMasked(edit as never, withBullets, rules)).toEqual({ payload: { ...withBullets, line: "M7" }, changed: [] });
  });
});

describe("a card number used as a key", () => {
  it("is shown masked and goes back to the stored key when the edit keeps it; an invented masked key is refused", () => {
    const storedByCard = { fares: { "4111111111111111": 250 }, note: "x" };
    const shown = maskJson(storedByCard, rules) as { fares: Record<string, number> };
    expect(Object.keys(shown.fares)).toEqual(["••••••••••••1111"]);
    const kept = restoreMasked({ ...shown, note: "edited" }, storedByCard, rules);
    expect(kept).toEqual({ payload: { fares: { "4111111111111111": 250 }, note: "edited" }, changed: [] });
    const invented = restoreMasked({ fares: { "••••••••••••9999": 1 }, note: "x" }, storedByCard, rules);
    expect(invented.changed).toEqual([["fares", "••••••••••••9999"]]);
  });
});
