import type { DeadLetterSummary, ListPage } from "../contract/list";
import type { Facets } from "../contract/facets";
import { maskIdentifier } from "../../masking/identifiers";
import { maskFreeText } from "../../masking/mask";
import type { MaskRules } from "../../masking/rules";

// Failure reasons are free text written by producers and sinks, and they echo input: "card_number:
// 4111111111111111 is not allowed". Every reason that leaves the server for a reader without clear access goes
// through the free-text rule (Luhn-valid 13–19 digit runs keep their last 4); there are no keys in free text.
//
// Reason groups (lib/afc/reason-group.ts) already replace numbers by "…", except digits glued to a word
// ("pan4111111111111111"), so they get the same rule. A group masked that way no longer matches its stored
// value as a filter: the list then shows nothing for it, which is the safe failure (the records are still
// found by their other facets).

export function maskReason(text: string, rules: MaskRules | null): string {
  return rules ? maskFreeText(text, rules) : text;
}

export function maskOptionalReason(text: string | null, rules: MaskRules | null): string | null {
  return text === null ? null : maskReason(text, rules);
}

type HasReasons = Pick<DeadLetterSummary, "reason" | "reasonGroup" | "classReason"> &
  Partial<Pick<DeadLetterSummary, "eventId" | "deviceId">>;

/**
 * A list row (or anything shaped like one) with its reason, reason group and class reason masked, and its
 * identifier copies where the key globs name them (identifiers.ts).
 */
export function maskSummary<T extends HasReasons>(row: T, rules: MaskRules | null): T {
  if (!rules) return row;
  return {
    ...row,
    reason: maskFreeText(row.reason, rules),
    reasonGroup: maskFreeText(row.reasonGroup, rules),
    classReason: maskOptionalReason(row.classReason, rules),
    ...(row.eventId !== undefined ? { eventId: maskIdentifier(row.eventId, "event_id", rules) } : {}),
    ...(row.deviceId !== undefined ? { deviceId: maskIdentifier(row.deviceId, "device_id", rules) } : {}),
  };
}

export function maskListPage(page: ListPage, rules: MaskRules | null): ListPage {
  return rules ? { ...page, items: page.items.map((r) => maskSummary(r, rules)) } : page;
}

/** Facet counts: the reason buckets are reason groups. */
export function maskFacets(facets: Facets, rules: MaskRules | null): Facets {
  if (!rules) return facets;
  return { ...facets, reason: facets.reason.map((b) => ({ ...b, value: maskFreeText(b.value, rules) })) };
}

/** Anything grouped by reason pattern (quarantine groups, the overview's top reasons). */
export function maskReasonGroups<T extends { reasonGroup: string; reasons?: { reason: string; count: number }[] }>(
  groups: T[],
  rules: MaskRules | null,
): T[] {
  // A quarantine group's people-given reasons are free text too.
  return rules
    ? groups.map((g) => ({
        ...g,
        reasonGroup: maskFreeText(g.reasonGroup, rules),
        ...(g.reasons ? { reasons: g.reasons.map((r) => ({ ...r, reason: maskFreeText(r.reason, rules) })) } : {}),
      }))
    : groups;
}
