import { describe, expect, it } from "vitest";
import { decideTeams, parseTeamMap } from "./sso-teams";

describe("parseTeamMap", () => {
  it("reads group=team pairs, blanks ignored", () => {
    expect(parseTeamMap(" parcels-ops = Parcels ,fare-ops=Fares,,")).toEqual([
      { value: "parcels-ops", team: "Parcels" },
      { value: "fare-ops", team: "Fares" },
    ]);
  });

  it("names the entry it cannot read", () => {
    expect(() => parseTeamMap("ops=Parcels,broken")).toThrow('"broken": expected <group>=<team name>');
    expect(() => parseTeamMap("ops=")).toThrow('"ops=": expected');
  });
});

describe("decideTeams", () => {
  const map = parseTeamMap("parcels-ops=Parcels,fare-ops=Fares,fare-admins=Fares");
  it("puts the person in every team one of their groups maps to", () => {
    expect(decideTeams(["fare-admins", "parcels-ops", "other"], map)).toEqual({
      managed: ["Fares", "Parcels"],
      member: ["Fares", "Parcels"],
    });
  });

  it("a person in no mapped group is in none of the managed teams", () => {
    expect(decideTeams(["other"], map)).toEqual({ managed: ["Fares", "Parcels"], member: [] });
  });
});
