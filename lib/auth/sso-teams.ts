// Which Redrive teams a person signing in through the identity provider belongs to, decided from the same groups
// claim as the role (sso-roles.ts) at every sign-in. Unlike the role (first match), every mapped group counts: a
// person in two mapped groups is in both teams. Only the teams the map names are managed this way; a membership
// an admin gave in another team is left alone.

export interface TeamMapEntry {
  value: string;
  team: string;
}

/**
 * Parses `parcels-ops=Parcels,fare-ops=Fares` (REDRIVE_OIDC_TEAM_MAP): a group (any character but `,` and `=`)
 * and a team's name. Throws with the offending entry named.
 */
export function parseTeamMap(text: string): TeamMapEntry[] {
  const entries: TeamMapEntry[] = [];
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.lastIndexOf("=");
    const value = eq > 0 ? item.slice(0, eq).trim() : "";
    const team = eq > 0 ? item.slice(eq + 1).trim() : "";
    if (value === "" || team === "") throw new Error(`"${item}": expected <group>=<team name>`);
    entries.push({ value, team });
  }
  return entries;
}

/** The teams the map manages, and those of them the person's groups (`values`) put them in. */
export function decideTeams(values: readonly string[], map: readonly TeamMapEntry[]): { managed: string[]; member: string[] } {
  const held = new Set(values);
  const managed = [...new Set(map.map((e) => e.team))].sort();
  const member = [...new Set(map.filter((e) => held.has(e.value)).map((e) => e.team))].sort();
  return { managed, member };
}
