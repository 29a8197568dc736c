import { describe, expect, it } from "vitest";
import { batchInScopeSql, brokerSourceInScope, inScope, scopeOf, scopeSql, sourceColumnSql, UNSCOPED } from "./record-scope";

const params = () => {
  const values: unknown[] = [];
  return { values, p: (v: unknown) => `$${values.push(v)}` };
};

describe("scopeOf", () => {
  it("is unscoped for a user in no team", () => {
    expect(scopeOf([])).toBe(UNSCOPED);
  });

  it("gathers names, prefixes and origins of every team, sorted and once each", () => {
    const scope = scopeOf([
      { id: "2", claims: [{ source: "parcels" }, { source: "fares*" }] },
      { id: "1", claims: [{ origin: "rabbit-dlq" }, { source: "parcels", origin: null }] },
    ]);
    expect(scope).toEqual({ all: false, teamIds: ["1", "2"], sources: ["parcels"], prefixes: ["fares"], origins: ["rabbit-dlq"] });
  });

  it("a team without claims scopes to nothing", () => {
    const scope = scopeOf([{ id: "1", claims: [] }]);
    const { p } = params();
    expect(scopeSql(scope, p)).toBe("FALSE");
    expect(inScope(scope, { source: "anything" })).toBe(false);
  });
});

describe("inScope", () => {
  const scope = scopeOf([{ id: "1", claims: [{ source: "parcels" }, { source: "sensor*" }, { origin: "amqp-fares" }] }]);
  it.each([
    [{ source: "parcels" }, true],
    [{ source: "parcels-eu" }, false],
    [{ source: "sensor-7" }, true],
    [{ source: "sensor" }, true],
    [{ source: "sensors" }, true],
    [{ source: "fares", originSource: "amqp-fares" }, true],
    [{ source: "fares", originSource: "amqp-other" }, false],
    [{ source: "fares", originSource: null }, false],
  ])("%o → %s", (record, expected) => expect(inScope(scope, record)).toBe(expected));
});

describe("scopeSql", () => {
  it("is TRUE unscoped, with no parameter", () => {
    const { values, p } = params();
    expect(scopeSql(UNSCOPED, p)).toBe("TRUE");
    expect(values).toEqual([]);
  });

  it("ORs an equality, an index range per prefix (with the LIKE recheck) and the origin", () => {
    const { values, p } = params();
    const scope = scopeOf([{ id: "1", claims: [{ source: "parcels" }, { source: "sen_sor*" }, { origin: "amqp-fares" }] }]);
    expect(scopeSql(scope, p)).toBe("(d.source = $1 OR (d.source >= $2 AND d.source < $3 AND d.source LIKE $4) OR d.origin_source = $5)");
    expect(values).toEqual(["parcels", "sen_sor", "sen_sos", "sen\\_sor%", "amqp-fares"]);
  });

  it("`*` alone is every source", () => {
    const { p } = params();
    expect(scopeSql(scopeOf([{ id: "1", claims: [{ source: "*" }] }]), p)).toBe("TRUE");
  });

  it("a source-named column leaves origins out (a rollup has none)", () => {
    const { values, p } = params();
    const scope = scopeOf([{ id: "1", claims: [{ source: "a" }, { origin: "o" }] }]);
    expect(sourceColumnSql(scope, p, "s.source")).toBe("(s.source = ANY($1::text[]))");
    expect(values).toEqual([["a"]]);
    expect(sourceColumnSql(scopeOf([{ id: "1", claims: [{ origin: "o" }] }]), params().p, "source")).toBe("FALSE");
  });

  it("a batch is in scope when none of its records is outside (NULL origins count as outside)", () => {
    const { p } = params();
    const scope = scopeOf([{ id: "1", claims: [{ origin: "o" }] }]);
    expect(batchInScopeSql(scope, p)).toContain("NOT coalesce(sd.origin_source = $1, false)");
    expect(batchInScopeSql(UNSCOPED, p)).toBe("TRUE");
  });
});

describe("brokerSourceInScope", () => {
  it("shows a team the broker sources it claims by name, not those whose records' source names it claims", () => {
    const scope = scopeOf([{ id: "1", claims: [{ source: "amqp*" }, { origin: "amqp-fares" }] }]);
    expect([brokerSourceInScope(scope, "amqp-fares"), brokerSourceInScope(scope, "amqp-parcels")]).toEqual([true, false]);
    expect(brokerSourceInScope(UNSCOPED, "amqp-parcels")).toBe(true);
  });
});
