import { AppError } from "../../errors/app-error";
import type { RecordScope } from "../../scope/record-scope";

// Which alert rules a principal sees and changes. A team's rule counts the team's records only: its members see it
// with its values and events and (supervisors) edit it. A company-wide rule (no team) counts every record: a reader
// in teams sees its name and threshold but not what it measured (other teams' records are in it), and only a
// supervisor in no team edits it. Another team's rule is not there at all (404, as a record outside one's
// teams). Pure: the SQL readers and the edits apply these.

/** "full": with values and events · "config": name and threshold only · "none": not shown. */
export type RuleAccess = "full" | "config" | "none";

export function ruleAccess(scope: RecordScope, teamId: string | null): RuleAccess {
  if (scope.all) return "full";
  if (teamId === null) return "config";
  return scope.teamIds.includes(teamId) ? "full" : "none";
}

/** Throws unless the principal may change the rule: 404 for another team's, 403 for a company-wide one. */
export function assertRuleEditable(scope: RecordScope, rule: { id: string; teamId: string | null }): void {
  const access = ruleAccess(scope, rule.teamId);
  if (access === "full") return;
  if (access === "none") throw alertRuleNotFound();
  throw new AppError(
    "forbidden",
    `alert rule ${rule.id} is company-wide: a supervisor in no team changes it; copy it for your team instead`,
    {
      issues: [{ path: "id", message: "is a company-wide alert rule" }],
    },
  );
}

/** The id is not echoed: the answer for another team's rule is the same, word for word, as for one never made. */
export const alertRuleNotFound = () =>
  new AppError("not_found", "no such alert rule", { issues: [{ path: "id", message: "no such alert rule" }] });

/**
 * The team a new rule belongs to: the one named, or for a member of exactly one team that team. A principal in
 * teams names one of theirs (a company-wide rule is an unscoped supervisor's); an unscoped one may name any team
 * or none (company-wide), whether it exists is checked when it is written.
 */
export function newRuleTeam(scope: RecordScope, teamId: string | null | undefined): string | null {
  if (scope.all) return teamId ?? null;
  if (teamId === undefined && scope.teamIds.length === 1) return scope.teamIds[0]!;
  if (teamId === undefined || teamId === null)
    throw new AppError("validation_failed", "a member of teams creates alert rules for one of their teams", {
      issues: [{ path: "teamId", message: `required: one of your teams (${scope.teamIds.join(", ")})` }],
    });
  if (!scope.teamIds.includes(teamId))
    throw new AppError("validation_failed", `team ${teamId} is not one of your teams`, {
      issues: [{ path: "teamId", message: "is not one of your teams" }],
    });
  return teamId;
}
