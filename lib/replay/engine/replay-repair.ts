import { ApprovedRepairSchema, type ApprovedRepair, type RepairMethod, type RepairPolicy, type SentRepair } from "../../vocabulary/record";

// Which repair an item replays with. The approval pinned one (method, policy, digest of what the analyst saw); the
// batch's own setting is for records approved without a pin (before pins existed, or AFC). A supervisor may
// override pins for a whole batch, confirmed and audited at creation (create-batch.ts); the digest is then checked
// only where the override happens to use the pinned settings, since a different repair cannot give the same bytes.

export interface ReplayRepair {
  method: RepairMethod;
  policy: RepairPolicy;
  /** the approved geometry's digest the delivery must match; null: no approved result to hold it to */
  digest: string | null;
  /** where the settings came from */
  from: "approval" | "batch";
}

/** A stored pin (snapshot jsonb), or null when absent or unreadable: an unreadable pin is treated as none. */
export function readPin(value: unknown): ApprovedRepair | null {
  if (value === null || value === undefined) return null;
  const parsed = ApprovedRepairSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function replayRepair(
  pin: ApprovedRepair | null,
  batch: { method: RepairMethod; policy: RepairPolicy; override: boolean },
): ReplayRepair {
  if (!pin) return { method: batch.method, policy: batch.policy, digest: null, from: "batch" };
  if (!batch.override) return { method: pin.method, policy: pin.policy, digest: pin.digest, from: "approval" };
  const same = pin.method === batch.method && pin.policy === batch.policy;
  return { method: batch.method, policy: batch.policy, digest: same ? pin.digest : null, from: "batch" };
}

/**
 * Whether replaying a pinned record with the batch's settings could change what was approved: a valid geometry
 * is sent as received whatever the repair, so only pins of repaired geometries with other settings count.
 */
export function conflictsWithPin(
  pin: Pick<ApprovedRepair, "method" | "policy" | "outcome">,
  batch: { method: RepairMethod; policy: RepairPolicy },
): boolean {
  return pin.outcome === "repaired" && (pin.method !== batch.method || pin.policy !== batch.policy);
}

/**
 * What an item records as sent (replay_item.sent): the repair it was sent with and what that did, with the pin's
 * digest and acknowledged warnings when the settings came from the approval — the approval stays on the record's
 * replay for good, whatever the record's own approval fields say later (re-opened, approved again).
 */
export function sentRepair(repair: ReplayRepair, pin: ApprovedRepair | null, outcome: "valid" | "repaired"): SentRepair {
  const fromPin = repair.from === "approval" && pin !== null;
  return {
    method: repair.method,
    policy: repair.policy,
    from: repair.from,
    outcome,
    ...(fromPin ? { digest: pin.digest } : {}),
    ...(fromPin && pin.acknowledged?.length ? { acknowledged: pin.acknowledged } : {}),
  };
}
