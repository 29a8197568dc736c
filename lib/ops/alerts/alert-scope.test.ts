import { describe, expect, it } from "vitest";
import { scopeOf, UNSCOPED } from "../../scope/record-scope";
import { assertRuleEditable, newRuleTeam, ruleAccess } from "./alert-scope";

const teamA = scopeOf([{ id: "1", claims: [{ source: "parcels*" }] }]);
const teamsAB = scopeOf([
  { id: "1", claims: [{ source: "parcels*" }] },
  { id: "2", claims: [{ origin: "fares-dlq" }] },
]);

describe("ruleAccess", () => {
  it("shows an unscoped principal every rule whole", () => {
    expect([ruleAccess(UNSCOPED, null), ruleAccess(UNSCOPED, "7")]).toEqual(["full", "full"]);
  });

  it("shows a team member their team's rules whole, company-wide ones without values and other teams' not at all", () => {
    expect([ruleAccess(teamA, "1"), ruleAccess(teamA, null), ruleAccess(teamA, "2")]).toEqual(["full", "config", "none"]);
  });
});

describe("assertRuleEditable", () => {
  it("lets a member change their team's rule and an unscoped supervisor any", () => {
    expect(() => assertRuleEditable(teamA, { id: "r", teamId: "1" })).not.toThrow();
    expect(() => assertRuleEditable(UNSCOPED, { id: "r", teamId: null })).not.toThrow();
  });

  it("answers 404 for another team's rule and 403 for a company-wide one", () => {
    expect(() => assertRuleEditable(teamA, { id: "r", teamId: "2" })).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => assertRuleEditable(teamA, { id: "r", teamId: null })).toThrow(expect.objectContaining({ status: 403 }));
  });
});

describe("newRuleTeam", () => {
  it("defaults to a member's only team and lets an unscoped principal create company-wide rules", () => {
    expect(newRuleTeam(teamA, undefined)).toBe("1");
    expect(newRuleTeam(UNSCOPED, undefined)).toBeNull();
    expect(newRuleTeam(UNSCOPED, "9")).toBe("9");
  });

  it("asks a member of several teams which, and refuses a team not theirs or none, naming teamId", () => {
    for (const teamId of [undefined, null, "3"])
      expect(() => newRuleTeam(teamsAB, teamId)).toThrow(
        expect.objectContaining({ status: 422, issues: [expect.objectContaining({ path: "teamId" })] }),
      );
    expect(newRuleTeam(teamsAB, "2")).toBe("2");
  });
});
