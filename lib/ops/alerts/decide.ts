import type { AlertMetric } from "../../forensics/forensics-schemas";

// When an alert fires and when it resolves. Pure: the evaluation loop reads the metric and the rule's open
// event (if any) and writes what this returns. An alert fires ONCE per breach — an open event means the breach
// is already known and evaluating again changes nothing — and resolves when the value is back at or under the
// threshold, after which the next breach fires again.

export interface RuleState {
  id: string;
  name: string;
  metric: AlertMetric;
  threshold: number;
  windowMinutes: number;
}

export type AlertDecision = { action: "fire"; message: string } | { action: "resolve"; message: string } | { action: "none" };

export function breached(value: number, threshold: number): boolean {
  return value > threshold;
}

function describe(rule: RuleState, value: number): string {
  const v = Math.round(value * 10) / 10;
  switch (rule.metric) {
    case "poison_growth":
      return `${v} poison records in the last ${rule.windowMinutes} min (threshold ${rule.threshold})`;
    case "dlq_size":
      return `${v} unresolved dead letters (threshold ${rule.threshold})`;
    case "oldest_age":
      return `oldest unresolved dead letter is ${v} h old (threshold ${rule.threshold} h)`;
    case "source_down":
      return `${v} broker source(s) failing for more than ${rule.windowMinutes} min (threshold ${rule.threshold}); see /sources`;
    case "rule_canary":
      return `${v} standing replay(s) paused by their canary; see /rules`;
    case "rule_refailure":
      return `${v} records of a rule failed again after their replay in the last ${rule.windowMinutes} min (threshold ${rule.threshold}); see /rules`;
  }
}

export function decideAlert(rule: RuleState, value: number, open: boolean): AlertDecision {
  const over = breached(value, rule.threshold);
  if (over && !open) return { action: "fire", message: `${rule.name || rule.id}: ${describe(rule, value)}` };
  if (!over && open) return { action: "resolve", message: `${rule.name || rule.id} resolved: ${describe(rule, value)}` };
  return { action: "none" };
}
