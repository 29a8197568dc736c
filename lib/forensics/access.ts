import { AppError } from "../errors/app-error";
import { can } from "../auth/permissions";
import type { Principal } from "../auth/principal";
import { configuredMaskRules } from "../masking/config";
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
