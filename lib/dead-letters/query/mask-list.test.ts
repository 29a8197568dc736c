import { describe, expect, it } from "vitest";
import { reasonGroup } from "../../afc/reason-group";
import type { DeadLetterSummary } from "../contract/list";
import type { Facets } from "../contract/facets";
import { maskFacets, maskListPage, maskReason, maskReasonGroups, maskSummary } from "./mask-list";
import { DEFAULT_MASK_RULES } from "../../masking/rules";

const PAN = "4111111111111111";
const rules = DEFAULT_MASK_RULES;

const row = (reason: string, classReason: string | null = null): DeadLetterSummary => ({
  id: "1",
  kind: "afc",
  source: "s",
  idempotencyKey: null,
  eventId: null,
  deviceId: null,
  reason,
  reasonGroup: reasonGroup(reason),
  failureClass: "poison",
  classReason,
  status: "quarantined",
  observedAt: "2026-11-05T08:00:00.000Z",
  replayCount: 0,
  failureCount: 1,
  version: 1,
  outcome: null,
});

describe("masking free-text reasons", () => {
  it("masks a PAN inside a reason, keeps its last 4 and the rest of the text", () => {
    expect(maskReason(`card_number: ${PAN} is not allowed`, rules)).toBe("card_number: ••••••••••••1111 is not allowed");
    expect(maskReason("card_number: 4111 1111 1111 1111 is not allowed", rules)).toBe("card_number: ••••••••••••1111 is not allowed");
    expect(maskReason(`card_number: ${PAN} is not allowed`, null)).toBe(`card_number: ${PAN} is not allowed`);
  });

  it("leaves numbers that are not card numbers: counts, coordinates, timestamps, failing Luhn runs", () => {
    const text = "exhausted retries: 4 errors at 174.4418584872960 (1730793600000, 4111111111111112)";
    expect(maskReason(text, rules)).toBe(text);
  });

  it("masks list rows: reason, reason group (digits glued to a word survive grouping) and class reason", () => {
    const glued = `pan${PAN} rejected`;
    expect(reasonGroup(glued)).toContain(PAN); // why the group needs the rule too
    const page = maskListPage({ items: [row(glued, `card_pan: ${PAN} not allowed`)], nextCursor: null }, rules);
    const [masked] = page.items;
    expect(masked).toMatchObject({
      reason: "pan••••••••••••1111 rejected",
      reasonGroup: "pan••••••••••••1111 rejected",
      classReason: "card_pan: ••••••••••••1111 not allowed",
    });
    expect(JSON.stringify(page)).not.toContain(PAN);
    expect(maskSummary(row(glued), null).reason).toBe(glued);
  });

  it("masks reason buckets of facets and grouped reasons, nothing else", () => {
    const facets: Facets = {
      total: 1,
      exact: true,
      kind: [{ value: "afc", count: 1 }],
      status: [],
      class: [],
      source: [{ value: "s", count: 1 }],
      reason: [{ value: `pan${PAN} rejected`, count: 1 }],
    };
    expect(maskFacets(facets, rules)).toEqual({ ...facets, reason: [{ value: "pan••••••••••••1111 rejected", count: 1 }] });
    expect(maskReasonGroups([{ reasonGroup: `token ${PAN}x`, count: 2 }], rules)).toEqual([
      { reasonGroup: "token ••••••••••••1111x", count: 2 },
    ]);
    expect(maskReasonGroups([{ reasonGroup: `token ${PAN}x`, count: 2 }], null)).toEqual([{ reasonGroup: `token ${PAN}x`, count: 2 }]);
  });
});
