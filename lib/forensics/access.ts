import { AppError } from "../errors/app-error";
import { can } from "../auth/permissions";
import type { Principal } from "../auth/principal";
import { CARD_NUMBER_REFUSED } from "../dead-letters/filters";
import { configuredMaskRules } from "../masking/config";
import { holdsCardNumber } from "../masking/mask";
import type { MaskRules } from "../masking/rules";

// Who sees card data. Everyone sees it masked by default, auditors included: reading a PAN is an act that
// leaves a trace, so a holder of dead_letters:unmask asks for it (unmask=1 on a read, or reveal one field) and
// that request is audited. Without the permission, asking is refused (403), not silently masked, so a script
// never mistakes masked data for the real thing.

/** The rules to apply for this request, or null for clear values. */
export function maskFor(principal: Principal | null, unmask: boolean): MaskRules | null {
  if (!unmask) return configuredMaskRules();
  if (!principal || !can(principal.role, "dead_letters:unmask")) {
    throw new AppError("forbidden", `role ${principal?.role ?? "(none)"} lacks permission dead_letters:unmask (needed for unmask=1)`, {
      details: { permission: "dead_letters:unmask" },
    });
  }
  return null;
}

/** Whether this reader may see card data in clear (when asking for it): dead_letters:unmask. */
export function hasUnmaskRights(principal: Principal | null): boolean {
  return principal !== null && can(principal.role, "dead_letters:unmask");
}

/**
 * Search terms holding a card number (lib/masking/mask.ts cardSpans, the rule masking uses) from a reader who sees
 * card numbers masked are refused, naming the parameter: the answer would confirm a number the reader is not shown.
 * A holder of dead_letters:unmask looks a record up by the real value (the list's filters refuse such terms for
 * everyone: their readers all see masked values, ListFilterSchema).
 */
export function assertSearchable(unmaskRights: boolean, params: Record<string, string | undefined>): void {
  if (unmaskRights) return;
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && holdsCardNumber(value)) {
      throw new AppError("validation_failed", `${name}: ${CARD_NUMBER_REFUSED}`, {
        issues: [{ path: name, message: CARD_NUMBER_REFUSED }],
      });
    }
  }
}
