import { isRole, type Role } from "./permissions";

// Which Redrive role a person signing in through the identity provider gets, decided from the provider's claims
// alone at every sign-in: the provider is the source of truth, so a group removed there is a role removed here.

/** One entry of the role map: a claim value (a group name, an Entra group object id, an app role) and its role. */
export interface RoleMapEntry {
  value: string;
  role: Role;
}

export interface RoleMapping {
  /** the claim holding the groups; a dotted path reaches a nested one (Keycloak's `realm_access.roles`) */
  claim: string;
  /** in order: the first entry whose value the person holds gives the role */
  map: RoleMapEntry[];
}

export type RoleDecision = { role: Role; values: string[]; matched: string } | { role: null; values: string[] };

/**
 * Parses `redrive-admins=admin,ops=supervisor` (REDRIVE_OIDC_ROLE_MAP). Values may hold any character but `,`
 * and `=`; blanks around them are ignored. Throws with the offending entry named.
 */
export function parseRoleMap(text: string): RoleMapEntry[] {
  const entries: RoleMapEntry[] = [];
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.lastIndexOf("=");
    const value = eq > 0 ? item.slice(0, eq).trim() : "";
    const role = eq > 0 ? item.slice(eq + 1).trim() : "";
    if (value === "") throw new Error(`"${item}": expected <group>=<role>`);
    if (!isRole(role)) throw new Error(`"${item}": ${role || "(empty)"} is not a role (analyst, supervisor, auditor, admin, producer)`);
    entries.push({ value, role });
  }
  return entries;
}

export function formatRoleMap(map: readonly RoleMapEntry[]): string {
  return map.map((e) => `${e.value}=${e.role}`).join(",");
}

/** The values of the groups claim as strings: an array (Keycloak, Entra ID, Okta) or a single value. */
export function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  let node: unknown = claims;
  // The whole name first: Entra ID and Auth0 put URLs with dots in claim names.
  if (claim in claims) node = claims[claim];
  else {
    for (const part of claim.split(".")) {
      if (typeof node !== "object" || node === null || Array.isArray(node)) return [];
      node = (node as Record<string, unknown>)[part];
    }
  }
  const list = Array.isArray(node) ? node : node === undefined || node === null ? [] : [node];
  return list.filter((v): v is string | number => typeof v === "string" || typeof v === "number").map(String);
}

export function decideRole(claims: Record<string, unknown>, mapping: RoleMapping): RoleDecision {
  const values = claimValues(claims, mapping.claim);
  const held = new Set(values);
  const hit = mapping.map.find((e) => held.has(e.value));
  return hit ? { role: hit.role, values, matched: hit.value } : { role: null, values };
}
