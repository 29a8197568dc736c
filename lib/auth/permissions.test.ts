import { describe, expect, it } from "vitest";
import { can, isRole, PERMISSIONS, ROLE_PERMISSIONS, ROLES } from "./permissions";

describe("permission table", () => {
  it("every permission belongs to some role (none is dead) and every role holds only known permissions", () => {
    for (const p of PERMISSIONS)
      expect(
        ROLES.some((r) => can(r, p)),
        p,
      ).toBe(true);
    for (const r of ROLES) for (const p of ROLE_PERMISSIONS[r]) expect(PERMISSIONS).toContain(p);
  });

  it("producers may only ingest, read what they sent (masked) and manage their own tokens", () => {
    expect([...ROLE_PERMISSIONS.producer].sort()).toEqual(["dead_letters:ingest", "dead_letters:read_own", "tokens:own"]);
    expect(can("producer", "dead_letters:read")).toBe(false);
    expect(can("producer", "dead_letters:unmask")).toBe(false);
  });

  it("producers and admins ingest (an admin imports a file from the dashboard); readers do not", () => {
    expect(ROLES.filter((r) => can(r, "dead_letters:ingest"))).toEqual(["admin", "producer"]);
  });

  it("every role can manage its own API tokens; only admins can revoke others' or manage users", () => {
    for (const r of ROLES) expect(can(r, "tokens:own"), r).toBe(true);
    expect(ROLES.filter((r) => can(r, "tokens:manage"))).toEqual(["admin"]);
    expect(ROLES.filter((r) => can(r, "users:manage"))).toEqual(["admin"]);
  });

  it("separates duties: approval is for supervisors; auditors and admins read but do not triage or replay", () => {
    expect(ROLES.filter((r) => can(r, "replays:approve"))).toEqual(["supervisor"]);
    for (const r of ["auditor", "admin"] as const) {
      expect(can(r, "dead_letters:triage")).toBe(false);
      expect(can(r, "replays:manage")).toBe(false);
      expect(can(r, "audit:read")).toBe(true);
    }
    expect(can("analyst", "audit:read")).toBe(false);
    expect(can("analyst", "dead_letters:purge")).toBe(false);
  });

  it("notes are written by analysts, supervisors and admins; auditors read them; producers neither", () => {
    expect(ROLES.filter((r) => can(r, "notes:write"))).toEqual(["analyst", "supervisor", "admin"]);
    expect(can("auditor", "dead_letters:read")).toBe(true);
    expect(can("producer", "dead_letters:read")).toBe(false);
  });

  it("isRole accepts exactly the roles", () => {
    for (const r of ROLES) expect(isRole(r)).toBe(true);
    for (const v of ["root", "", "Admin", null, 1, undefined]) expect(isRole(v)).toBe(false);
  });
});
