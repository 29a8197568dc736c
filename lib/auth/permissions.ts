// Who may do what, in one table. The handler wrapper checks these on the server for every route; the UI
// only uses them to decide what to show.

export const ROLES = ["analyst", "supervisor", "auditor", "admin", "producer"] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  "dead_letters:read",
  /** read the records one's own tokens and sessions sent (a producer's view), always masked */
  "dead_letters:read_own",
  "dead_letters:ingest",
  "dead_letters:triage",
  "dead_letters:override_identity",
  "dead_letters:purge",
  "dead_letters:unmask",
  "dead_letters:export",
  "replays:read",
  "replays:manage",
  "replays:approve",
  "audit:read",
  "alerts:manage",
  "users:manage",
  /** list, create and revoke one's own API tokens (every role: scripts and producers authenticate with them) */
  "tokens:own",
  /** revoke anyone's API token */
  "tokens:manage",
  /** see the broker sources and their state */
  "sources:read",
  /** add, change, pause, pull and remove broker sources (admins) */
  "sources:manage",
  /** change run-time settings such as the single-approver limit for replay batches (admins; audited) */
  "settings:manage",
  /** write notes on a record (reading them takes dead_letters:read) */
  "notes:write",
  /** the triage rules' kill switch (drafting and approving a rule take replays:approve) */
  "rules:disable",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const READ: Permission[] = ["dead_letters:read", "replays:read", "dead_letters:export", "tokens:own", "sources:read"];
const ANALYST: Permission[] = [...READ, "dead_letters:triage", "notes:write"];

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  analyst: new Set(ANALYST),
  supervisor: new Set<Permission>([
    ...ANALYST,
    "dead_letters:override_identity",
    "dead_letters:purge",
    "replays:manage",
    "replays:approve",
    "alerts:manage",
    "rules:disable",
  ]),
  auditor: new Set<Permission>([...READ, "audit:read", "dead_letters:unmask"]),
  // An admin ingests too: a file uploaded from the dashboard's import page.
  admin: new Set<Permission>([
    ...READ,
    "dead_letters:ingest",
    "audit:read",
    "users:manage",
    "tokens:manage",
    "sources:manage",
    "settings:manage",
    "notes:write",
    "rules:disable",
  ]),
  producer: new Set<Permission>(["dead_letters:ingest", "dead_letters:read_own", "tokens:own"]),
};

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
