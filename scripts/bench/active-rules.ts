import type { Pool } from "pg";
import { STANDING_REPLAY } from "../../lib/replay/batch/standing-rules";
import { createUser } from "../../lib/auth/users";
import { approveRule, createRule, type RuleContext } from "../../lib/rules/rules";
import type { RuleAction, RuleMatch } from "../../lib/rules/rule-schemas";
import { UNSCOPED } from "../../lib/scope/record-scope";

// `bench:ingest --rules n`: n active triage rules in a bench database before it ingests, so the store step's rule
// evaluation is part of what bench:ingest measures. Each is drafted by one supervisor and approved by another, as
// in production, and matches what the seed generators produce (lib/seed): half judge spatial records by the stored
// analysis or their reason, half AFC records by their tap's issues; approve, quarantine and leave take turns.

const SERVICE_UNAVAILABLE = "HTTP … Service Unavailable from tiles-ingest (attempt …)";

const RULES: { name: string; match: RuleMatch; action: RuleAction }[] = [
  {
    name: "parcels-small-repairs",
    match: { source: "parcels.v2", repair: { maxAreaChange: 0.01, sameType: true } },
    action: { type: "approve" },
  },
  { name: "bus-fare-as-float", match: { source: "validators.bus", afcIssues: ["fare_amount_cents"] }, action: { type: "approve" } },
  { name: "flood-zone-repairs", match: { source: "flood-zones", repair: { maxAreaChange: 0.05 } }, action: { type: "approve" } },
  {
    name: "metro-clock-skew",
    match: { source: "gates.metro", afcIssues: ["tap_timestamp"] },
    action: { type: "quarantine", reason: "gate clocks drift: check with the metro operator" },
  },
  { name: "tiles-outage", match: { kind: "spatial", reason: SERVICE_UNAVAILABLE }, action: { type: "approve" } },
  {
    name: "card-data-in-taps",
    match: { kind: "afc", afcIssues: ["account_ref", "card_pan"] },
    action: { type: "quarantine", reason: "card data in a tap: security review" },
  },
  { name: "survey-parts-kept", match: { source: "field-survey", repair: { maxDroppedParts: 0 } }, action: { type: "leave" } },
  { name: "battery-field", match: { kind: "afc", afcIssues: ["battery_pct"] }, action: { type: "approve" } },
  { name: "geofences-transient", match: { source: "fleet-geofences", class: "transient" }, action: { type: "leave" } },
  { name: "tram-fares", match: { source: "tram.readers", afcIssues: ["fare_amount_cents"] }, action: { type: "approve" } },
];

export async function insertActiveRules(pool: Pool, n: number, now = new Date()): Promise<void> {
  const system = { actor: { id: null, email: "bench", role: "system" }, now };
  const supervisor = async (email: string): Promise<RuleContext> => {
    const { user } = await createUser(pool, { email, role: "supervisor", password: "bench-supervisor-pass" }, system);
    return {
      actor: { id: user.id, email, role: "supervisor" },
      role: "supervisor",
      scope: UNSCOPED,
      requestId: "bench",
      now,
      standing: STANDING_REPLAY,
    };
  };
  const drafter = await supervisor("ann@bench.local");
  const approver = await supervisor("bob@bench.local");
  for (let i = 0; i < n; i++) {
    const base = RULES[i % RULES.length]!;
    const rule = await createRule(pool, { ...base, name: i < RULES.length ? base.name : `${base.name}-${i}` }, drafter);
    await approveRule(pool, rule.id, 1, approver);
  }
}
