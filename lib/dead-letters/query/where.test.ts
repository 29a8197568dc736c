import { describe, expect, it } from "vitest";
import { ListFilterSchema } from "../filters";
import { scopeOf, UNSCOPED } from "../../scope/record-scope";
import {
  buildWhere,
  buildWhereBranches,
  CARD_RUN_MIN,
  keyPrefixCondition,
  COMMON_WORD_SHARE,
  commonWordsSql,
  escapeLike,
  payloadWords,
  prefixUpperBound,
  selectBranches,
} from "./where";

describe("buildWhere", () => {
  describe("a source filter under a team's scope", () => {
    const team = scopeOf([{ id: "1", claims: [{ source: "gates.metro" }, { source: "parcels.*" }] }]);

    it("names nothing outside the scope: no row is read", () => {
      const { text, values } = buildWhere(team, ListFilterSchema.parse({ source: "validators.bus", status: "pending" }));
      expect(text).toBe('FALSE AND d.status = $1::"DeadLetterStatus"');
      expect(values).toEqual(["pending"]);
    });

    it("keeps the sources in scope (by name or prefix) as a plain condition, without the scope's OR", () => {
      const { text, values } = buildWhere(team, ListFilterSchema.parse({ source: "parcels.v2,validators.bus,gates.metro" }));
      expect(text).toBe("d.source = ANY($1::text[])");
      expect(values).toEqual([["parcels.v2", "gates.metro"]]);
    });

    it("keeps the scope's condition when the team claims a broker source (a record of another source may be theirs)", () => {
      const withOrigin = scopeOf([{ id: "1", claims: [{ source: "gates.metro" }, { origin: "rabbit-taps" }] }]);
      const { text } = buildWhere(withOrigin, ListFilterSchema.parse({ source: "validators.bus" }));
      expect(text).toContain("d.origin_source = $");
      expect(text).toContain("d.source = $");
    });
  });

  it("is TRUE without filters", () => {
    expect(buildWhere(UNSCOPED, {})).toEqual({ text: "TRUE", values: [] });
  });

  it("parameterises every value, never interpolates", () => {
    const filter = ListFilterSchema.parse({ kind: "afc", status: "pending,approved", source: "x'; drop table y; --" });
    const { text, values } = buildWhere(UNSCOPED, filter);
    expect(text).not.toContain("drop table");
    expect(values).toEqual(["afc", ["pending", "approved"], "x'; drop table y; --"]);
    // One value is an equality (so an index on it can still return rows in observed_at order), several an ANY.
    expect(text).toBe('d.kind = $1::"DeadLetterKind" AND d.status = ANY($2::"DeadLetterStatus"[]) AND d.source = $3::text');
  });

  it("selects a broker source's records by their origin, as a parameter", () => {
    const filter = ListFilterSchema.parse({ status: "pending", origin: "orders-dlq" });
    expect(buildWhere(UNSCOPED, filter)).toEqual({
      text: 'd.status = $1::"DeadLetterStatus" AND d.origin_source = $2',
      values: ["pending", "orders-dlq"],
    });
    expect(buildWhereBranches(UNSCOPED, { origin: "orders-dlq", bbox: [0, 0, 1, 1] }).branches[0]).toBe(
      "d.origin_source = $1 AND d.bbox && box(point($2, $3), point($4, $5))",
    );
  });

  it("finds a key by its first characters in any case, and a feature by its id", () => {
    const { text, values } = buildWhere(UNSCOPED, { q: "SP-2030ba99" });
    expect(text).toContain("lower(d.idempotency_key) LIKE $2");
    expect(text).toContain("(d.kind = 'spatial' AND d.entity_key = $1)");
    expect(values.slice(0, 2)).toEqual(["SP-2030ba99", "sp-2030ba99%"]);
    // an event hash prefix is a key prefix like any other
    expect(buildWhere(UNSCOPED, { q: "ABCDEFAB" }).values).toEqual(["ABCDEFAB", "abcdefab%"]);
  });

  it("stops a key prefix ending in digits where the key's run of digits could be a card number", () => {
    // No digits at the end: the prefix alone.
    expect(keyPrefixCondition("order-", (v) => `[${String(v)}]`)).toBe("lower(d.idempotency_key) LIKE [order-%]");
    const values: unknown[] = [];
    const sql = keyPrefixCondition("Pay-4111 11", (v) => `$${values.push(v)}`);
    expect(values).toEqual(["pay-4111 11%", 12, "^[ _.-]?\\d+(?:[ _.-]\\d+)*", CARD_RUN_MIN - 6]);
    expect(sql).toContain("OR d.idempotency_key ~ '^[0-9a-f]{64}$'");
    // After a separator the run goes on with the next digit.
    const after: unknown[] = [];
    keyPrefixCondition("pay-4111-", (v) => `$${after.push(v)}`);
    expect(after[2]).toBe("^\\d+(?:[ _.-]\\d+)*");
  });

  it("matches short text whole: a prefix of a few characters would match most of the table", () => {
    expect(buildWhere(UNSCOPED, { q: "abc" }).values).toEqual(["abc"]);
    expect(buildWhere(UNSCOPED, { q: "sp-12" }).values).toEqual(["sp-12"]);
  });

  it("keeps LIKE's wildcards literal in a searched prefix", () => {
    expect(buildWhere(UNSCOPED, { q: "key_100%" }).values).toEqual(["key_100%", "key\\_100\\%%"]);
  });

  it("searches the payload's words with q itself, and a condition's value then its exact jsonpath", () => {
    expect(buildWhere(UNSCOPED, { q: "fence" }).text).toContain("d.search_doc @@ plainto_tsquery('simple', $1)");
    const { text, values } = buildWhere(UNSCOPED, ListFilterSchema.parse({ q: 'properties.sensor = "SN-9"' }));
    expect(text).toContain("(d.search_doc @@ plainto_tsquery('simple', $3) AND jsonb_path_exists(d.payload, $4::jsonpath, $5::jsonb))");
    expect(values.slice(2)).toEqual(["SN-9", '$."properties"."sensor" ? (@ == $s)', '{"s":"SN-9"}']);
  });

  it("leaves the feature-id branch out when the filter excludes spatial records", () => {
    expect(buildWhere(UNSCOPED, { q: "dev-1" }).text).toContain("d.entity_key = $1");
    expect(buildWhere(UNSCOPED, { q: "dev-1", kind: ["afc"] }).text).not.toContain("entity_key");
    expect(buildWhere(UNSCOPED, { q: "dev-1", kind: ["afc", "spatial"] }).text).toContain("d.entity_key = $2");
  });

  it("tests every searched word against the common lexemes, from the words' parameter", () => {
    const sql = commonWordsSql("$7", "$8");
    expect(sql).toContain("to_tsvector('simple', $7)");
    expect(sql).toContain("<@ $8::text[]");
    expect(COMMON_WORD_SHARE).toBeGreaterThan(0);
    expect(payloadWords('properties.sensor = "SN-9"')).toBe("SN-9");
    expect(payloadWords("fence line")).toBe("fence line");
  });

  it("refuses a broken condition as q, naming the rule", () => {
    const r = ListFilterSchema.safeParse({ q: 'properties.sensor = "SN-9' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["q"]);
  });

  it("filters the viewport by box overlap, and by its +360 copy for boxes stored unwrapped past 180", () => {
    const filter = ListFilterSchema.parse({ bbox: "-10,40,5.5,52" });
    expect(buildWhere(UNSCOPED, filter)).toEqual({
      text: "(d.bbox && box(point($1, $2), point($3, $4)) OR d.bbox && box(point($5, $6), point($7, $8)))",
      values: [-10, 40, 5.5, 52, 350, 40, 365.5, 52],
    });
    expect(buildWhere(UNSCOPED, ListFilterSchema.parse({ bbox: "170,-20,180,-10" }))).toEqual({
      text: "d.bbox && box(point($1, $2), point($3, $4))",
      values: [170, -20, 180, -10],
    });
  });

  it("looks on both sides of the antimeridian for a viewport across it, instead of clamping it to one", () => {
    expect(buildWhere(UNSCOPED, ListFilterSchema.parse({ bbox: "170,-20,190,-10" }))).toEqual({
      text: "(d.bbox && box(point($1, $2), point($3, $4)) OR d.bbox && box(point($5, $6), point($7, $8)))",
      values: [170, -20, 180, -10, -180, -20, -170, -10],
    });
    // The RFC 7946 form of the same box (west > east) means the same.
    expect(buildWhere(UNSCOPED, ListFilterSchema.parse({ bbox: "170,-20,-170,-10" }))).toEqual(
      buildWhere(UNSCOPED, ListFilterSchema.parse({ bbox: "170,-20,190,-10" })),
    );
    expect(ListFilterSchema.safeParse({ bbox: "10,-20,5,-10" }).success).toBe(true); // 10 → 365 east: a box around the world's back
    expect(ListFilterSchema.safeParse({ bbox: "5,-10,10,-20" }).success).toBe(false); // south above north stays an error
    // A view scrolled onto the next world copy is the same place.
    expect(buildWhere(UNSCOPED, ListFilterSchema.parse({ bbox: "362,40,365,41" })).values).toEqual([2, 40, 5, 41, 362, 40, 365, 41]);
  });

  it("rejects a malformed bbox with a message", () => {
    const r = ListFilterSchema.safeParse({ bbox: "1,2,3" });
    expect(r.success).toBe(false);
    const r2 = ListFilterSchema.safeParse({ bbox: "10,1,5,0" }); // south above north
    expect(r2.success).toBe(false);
    expect(ListFilterSchema.safeParse({ bbox: "200,0,100,1" }).success).toBe(false); // west > east beyond ±180 is no RFC 7946 box
    expect(ListFilterSchema.safeParse({ bbox: "177,-18,-600,-15" }).error?.issues[0]?.message).toBe("out of range for EPSG:4326");
  });
});

describe("prefixUpperBound", () => {
  it("increments the last character", () => {
    expect(prefixUpperBound("00ff")).toBe("00fg");
    expect(prefixUpperBound("a")).toBe("b");
  });
});

describe("buildWhereBranches", () => {
  it("gives one branch per search box, each leaving out what an earlier one matched", () => {
    const { branches, values } = buildWhereBranches(UNSCOPED, ListFilterSchema.parse({ status: "pending", bbox: "172,-20,179,-10" }));
    expect(branches).toEqual([
      'd.status = $1::"DeadLetterStatus" AND d.bbox && box(point($2, $3), point($4, $5))',
      'd.status = $1::"DeadLetterStatus" AND d.bbox && box(point($6, $7), point($8, $9)) AND NOT (d.bbox && box(point($2, $3), point($4, $5)))',
    ]);
    expect(values).toEqual(["pending", 172, -20, 179, -10, 532, -20, 539, -10]);
  });

  it("is the plain condition without a viewport", () => {
    expect(buildWhereBranches(UNSCOPED, { status: ["pending"] })).toEqual({
      branches: ['d.status = $1::"DeadLetterStatus"'],
      values: ["pending"],
    });
    expect(selectBranches("d.id", ["a", "b"])).toBe(
      "SELECT d.id FROM dead_letter d WHERE a\n UNION ALL SELECT d.id FROM dead_letter d WHERE b",
    );
  });
});

describe("time range", () => {
  it("refuses from later than to, naming from", () => {
    const r = ListFilterSchema.safeParse({ from: "2026-11-25T00:00:00Z", to: "2026-11-22T00:00:00Z" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ path: ["from"], message: "must not be later than to" });
    expect(ListFilterSchema.safeParse({ from: "2026-11-22T00:00:00Z", to: "2026-11-22T00:00:00Z" }).success).toBe(true);
  });
});

describe("escapeLike", () => {
  it("makes %, _ and the backslash literal", () => {
    expect(escapeLike("sp_1%\\x")).toBe("sp\\_1\\%\\\\x");
    expect(escapeLike("sp-2030ba99")).toBe("sp-2030ba99");
  });
});

describe("the note filter", () => {
  it("is a semi-join on the notes, a case-insensitive substring with LIKE's wildcards taken literally", () => {
    const w = buildWhere(UNSCOPED, { note: "50%_off" });
    expect(w.text).toBe("d.id IN (SELECT dead_letter_id FROM dead_letter_note WHERE search_text ILIKE $1)");
    expect(w.values).toEqual(["%50\\%\\_off%"]);
  });
});
