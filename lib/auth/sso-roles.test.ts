import { describe, expect, it } from "vitest";
import { claimValues, decideRole, formatRoleMap, parseRoleMap } from "./sso-roles";

describe("parseRoleMap", () => {
  it("reads group=role pairs in order, ignoring blanks; a value may hold '=' (the last one separates)", () => {
    expect(parseRoleMap(" redrive-admins=admin, ops = supervisor ,,CN=Readers=analyst")).toEqual([
      { value: "redrive-admins", role: "admin" },
      { value: "ops", role: "supervisor" },
      { value: "CN=Readers", role: "analyst" },
    ]);
  });

  it("names the entry that is not a role or has no group", () => {
    expect(() => parseRoleMap("ops=root")).toThrow(/"ops=root": root is not a role/);
    expect(() => parseRoleMap("=admin")).toThrow(/expected <group>=<role>/);
    expect(() => parseRoleMap("admins")).toThrow(/expected <group>=<role>/);
  });

  it("formats back to the same text", () => {
    expect(formatRoleMap(parseRoleMap("a=admin, b=producer"))).toBe("a=admin,b=producer");
    expect(parseRoleMap("")).toEqual([]);
  });
});

describe("claimValues", () => {
  it("reads an array, a single value, a nested path and a claim name holding dots", () => {
    expect(claimValues({ groups: ["a", "b", 3, null] }, "groups")).toEqual(["a", "b", "3"]);
    expect(claimValues({ groups: "a" }, "groups")).toEqual(["a"]);
    expect(claimValues({ realm_access: { roles: ["x"] } }, "realm_access.roles")).toEqual(["x"]);
    expect(claimValues({ "https://corp.example/groups": ["y"] }, "https://corp.example/groups")).toEqual(["y"]);
    expect(claimValues({}, "groups")).toEqual([]);
    expect(claimValues({ realm_access: ["x"] }, "realm_access.roles")).toEqual([]);
  });
});

describe("decideRole", () => {
  const mapping = { claim: "groups", map: parseRoleMap("redrive-admins=admin,ops=supervisor,everyone=analyst") };

  it("gives the role of the first entry of the map the person holds", () => {
    expect(decideRole({ groups: ["everyone", "ops"] }, mapping)).toEqual({
      role: "supervisor",
      values: ["everyone", "ops"],
      matched: "ops",
    });
    expect(decideRole({ groups: ["redrive-admins", "ops"] }, mapping)).toMatchObject({ role: "admin" });
  });

  it("gives no role when no group is mapped, or the claim is missing", () => {
    expect(decideRole({ groups: ["sales"] }, mapping)).toEqual({ role: null, values: ["sales"] });
    expect(decideRole({}, mapping)).toEqual({ role: null, values: [] });
    expect(decideRole({ groups: ["ops"] }, { claim: "groups", map: [] })).toMatchObject({ role: null });
  });

  it("matches values exactly (case and whole value)", () => {
    expect(decideRole({ groups: ["OPS", "ops-team"] }, mapping)).toMatchObject({ role: null });
  });
});
