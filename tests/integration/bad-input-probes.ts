import { z } from "zod";

// The malformed requests tests/integration/bad-input.test.ts sends, derived from what an operation documents: its
// path parameters' and body's zod schemas and its query parameters as /api/openapi.json renders them. No database,
// no handler: the test runs them and judges the answers.

/**
 * What a probe must be answered with. `refuse`: a 4xx whose JSON error names `field` (in issues[].path or the
 * message) when it is a 400, 413 or 422. `notFound`: a 404 (a well-formed id that names nothing). `any`: the route
 * may take it (the reason is the probe's `why`), but never with a 5xx, and a 4xx still in the error shape.
 */
export type Expect = "refuse" | "notFound" | "any";

export interface Probe {
  what: string;
  expect: Expect;
  /** the field a 400/413/422 must name; "body" for the body as a whole */
  field?: string;
  /** why a probe that might look wrong may be answered 2xx */
  why?: string;
  /** path parameters (every one of the operation's, the probed one changed) */
  params?: Record<string, string | string[]>;
  /** the query string, without "?" */
  query?: string;
  /** the body exactly as sent; undefined: none */
  body?: string;
  contentType?: string;
}

/** A query parameter as /api/openapi.json documents it (the JSON Schema of its input). */
export interface QueryParam {
  name: string;
  schema: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

/** 2 MB: far past every short field, and under the default 4 MB body limit (so the field's own rule answers). */
export const HUGE = "a".repeat(2 * 1024 * 1024);
export const UNKNOWN_FIELD = "zzNotAField";

const DATE_MARK = "RFC 3339";

function enumOf(s: JsonSchema): unknown[] | undefined {
  if (s.enum) return s.enum;
  if (s.items && s.items.enum) return s.items.enum;
  return undefined;
}

const isArray = (s: JsonSchema) => s.type === "array" || (Array.isArray(s.type) && s.type.includes("array"));
const isNumeric = (s: JsonSchema) => s.type === "integer" || s.type === "number";

/** Whether `text` is a number the schema's bounds take (a query value is text: "1.5", "1e3", "-0"). */
function numberFits(s: JsonSchema, text: string): boolean {
  if (!/^-?\d+(\.\d+)?$/.test(text)) return false;
  const n = Number(text);
  if (!Number.isFinite(n) || (s.type === "integer" && !Number.isSafeInteger(n))) return false;
  if (s.minimum !== undefined && n < s.minimum) return false;
  if (s.exclusiveMinimum !== undefined && n <= s.exclusiveMinimum) return false;
  if (s.maximum !== undefined && n > s.maximum) return false;
  if (s.exclusiveMaximum !== undefined && n >= s.exclusiveMaximum) return false;
  return true;
}

/** Two values the parameter takes, for the repeated-parameter probe. */
function twoValid(name: string, s: JsonSchema): [string, string] {
  const values = enumOf(s);
  if (values && values.length >= 2) return [String(values[0]), String(values[1])];
  if (values) return [String(values[0]), String(values[0])];
  if (isNumeric(s)) {
    const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    return [String(Math.ceil(lo)), String(Math.ceil(lo) + 1)];
  }
  if (s.type === "boolean") return ["true", "false"];
  if (s.description?.includes(DATE_MARK)) return ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"];
  if (s.prefixItems) return [s.prefixItems.map(() => "0").join(","), s.prefixItems.map((_, i) => String(i % 2)).join(",")];
  if (name === "cursor" || name === "after") return ["1", "2"];
  return ["abc", "abd"];
}

/**
 * Malformed values for one query parameter, by what its schema says it holds. Every parameter gets the repeated
 * probe (`p=a&p=b`): a list parameter documents that as the list (kind=spatial&kind=afc), any other refuses it
 * rather than pick one of the two.
 */
export function queryProbes(p: QueryParam): Probe[] {
  const { name, schema: s } = p;
  const q = (value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  const refuse = (what: string, value: string): Probe => ({
    what: `query ${name}=${what}`,
    expect: "refuse",
    field: name,
    query: q(value),
  });
  const out: Probe[] = [];
  const values = enumOf(s);
  if (values) out.push(refuse("an unknown enum value", "no-such-value"));
  if (isNumeric(s)) {
    for (const v of ["-1", "0", "1.5", "99999999999999999999", "1e400", "abc", "0x10"]) {
      out.push(
        numberFits(s, v)
          ? { what: `query ${name}=${v} (in range)`, expect: "any", why: "within the documented range", query: q(v) }
          : refuse(v, v),
      );
    }
  }
  if (s.type === "boolean") out.push(refuse("maybe", "maybe"));
  if (s.description?.includes(DATE_MARK)) {
    for (const v of ["yesterday", "2026-13-45T99:99:99Z", "2026-02-30", "99999999999999999999", "1e400"])
      out.push(refuse(`a malformed date ${v}`, v));
  }
  if (s.prefixItems) {
    const n = s.prefixItems.length;
    out.push(
      refuse(
        `${n - 1} numbers`,
        Array(n - 1)
          .fill("1")
          .join(","),
      ),
    );
    out.push(
      refuse(
        `${n + 1} numbers`,
        Array(n + 1)
          .fill("1")
          .join(","),
      ),
    );
    out.push(refuse("words", Array(n).fill("x").join(",")));
    out.push(refuse("out of range", Array(n).fill("1000").join(",")));
    out.push(refuse("empty members", Array(n).fill("").join(",")));
  }
  if (name === "cursor" || name === "after") {
    out.push(refuse("garbage", "not-a-cursor!"));
    out.push(refuse("past bigint", "99999999999999999999"));
    out.push(refuse("negative", "-1"));
  }
  if (isArray(s) && s.items && (s.items.maxLength !== undefined || s.items.pattern)) {
    if (s.items.maxLength !== undefined)
      out.push(refuse(`a member of ${s.items.maxLength + 1} characters`, "x".repeat(s.items.maxLength + 1)));
    out.push(refuse("a member holding NUL", "a\u0000b"));
  }
  if (s.type === "string" && !values && !s.description?.includes(DATE_MARK) && name !== "cursor" && name !== "after") {
    if (s.maxLength !== undefined) out.push(refuse(`${s.maxLength + 1} characters`, "x".repeat(s.maxLength + 1)));
    if (s.minLength !== undefined && s.minLength > 1) out.push(refuse(`${s.minLength - 1} characters`, "x".repeat(s.minLength - 1)));
    if (s.pattern && !new RegExp(s.pattern).test("!!")) out.push(refuse("off its pattern", "!!"));
    // Free text reaches SQL (LIKE patterns, the payload search syntax): whatever it is, never a 5xx.
    out.push(refuse("NUL", "a\u0000b"));
    for (const v of ["%", "_", "\\", "'", '"', "a:", "=x", "/payload/x = {", "((", "*"]) {
      out.push({ what: `query ${name}=${v}`, expect: "any", why: "free text: any of it is a search", query: q(v) });
    }
  }
  const [a, b] = twoValid(name, s);
  const repeated = `${q(a)}&${q(b)}`;
  if (isArray(s) && !s.prefixItems) {
    out.push({ what: `query ${name} repeated`, expect: "any", why: "a list parameter: repeating it is the list", query: repeated });
  } else {
    out.push({ what: `query ${name} repeated`, expect: "refuse", field: name, query: repeated });
  }
  return out;
}

/** Values for one path parameter: not digits, past bigint, negative, and a well-formed one that names nothing. */
export function paramProbes(schema: z.ZodType, real: Record<string, string | string[]>, name: string): Probe[] {
  // Tried in order: the first the schema takes is the well-formed unknown id.
  const unknown = ["987654321", "no-such-thing", "AAAAAAAAAAAAAAAA"].find((v) => schema.safeParse({ ...real, [name]: v }).success);
  const cases: [string, string][] = [
    ["not digits", "abc"],
    ["past bigint", "99999999999999999999"],
    ["negative", "-1"],
    ["zero", "0"],
    ["a space", " 1"],
    ["NUL", "1\u0000"],
  ];
  const out: Probe[] = cases.map(([what, v]) => {
    const params = { ...real, [name]: v };
    // An id the schema takes (a token id, a source's name) is looked up: it names nothing here, so 404. NUL is
    // refused before any schema (defineRoute: PostgreSQL's text cannot hold it).
    const taken = schema.safeParse(params).success && !v.includes("\u0000");
    return { what: `param ${name} ${what} (${v})`, expect: taken ? "notFound" : "refuse", field: name, params };
  });
  if (unknown) out.push({ what: `param ${name} unknown (${unknown})`, expect: "notFound", params: { ...real, [name]: unknown } });
  return out;
}

/** Every property an object schema (or any of its variants) names, resolving the document's own $refs. */
export function propertiesOf(s: JsonSchema, root: JsonSchema = s): Record<string, JsonSchema> {
  if (s.$ref) {
    const key = s.$ref.replace(/^#\/\$defs\//, "");
    const target = root.$defs?.[key];
    return target ? propertiesOf(target, root) : {};
  }
  const out: Record<string, JsonSchema> = { ...s.properties };
  for (const v of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) Object.assign(out, propertiesOf(v, root));
  return out;
}

const takesString = (s: JsonSchema): boolean =>
  s.type === "string" || (Array.isArray(s.type) && s.type.includes("string")) || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(takesString);

/** Paths of the string leaves of a JSON value ("options.queue"), arrays' first member included ("ids.0"). */
function stringLeaves(value: unknown, at: string[] = []): string[][] {
  if (typeof value === "string") return [at];
  if (Array.isArray(value)) return value.length ? stringLeaves(value[0], [...at, "0"]) : [];
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...at, k]));
  return [];
}

function setAt(value: unknown, path: string[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === head ? setAt(v, rest, to) : v));
  const obj = (value ?? {}) as Record<string, unknown>;
  return { ...obj, [head]: setAt(obj[head], rest, to) };
}

/**
 * A JSON body's probes: not JSON, JSON that is not an object, an unknown field, each field (and all at once) of the
 * wrong type, and 2 MB in each string. `baseline` is a body the operation takes; each probe changes one thing in
 * it, so the answer must name that thing.
 */
export function bodyProbes(schema: JsonSchema, baseline: Record<string, unknown>): Probe[] {
  const json = (v: unknown) => JSON.stringify(v);
  const out: Probe[] = [
    { what: "body not JSON", expect: "refuse", field: "body", body: '{"a": 1,' },
    {
      what: "body not JSON (form-encoded)",
      expect: "refuse",
      field: "body",
      body: "a=1&b=2",
      contentType: "application/x-www-form-urlencoded",
    },
    { what: "body null", expect: "refuse", field: "body", body: "null" },
    { what: "body a number", expect: "refuse", field: "body", body: "42" },
    { what: "body an array", expect: "refuse", field: "body", body: json([baseline]) },
    { what: "body an empty array", expect: "refuse", field: "body", body: "[]" },
    { what: "body a string", expect: "refuse", field: "body", body: json("hello") },
    { what: "an unknown field", expect: "refuse", field: UNKNOWN_FIELD, body: json({ ...baseline, [UNKNOWN_FIELD]: 1 }) },
  ];
  const props = propertiesOf(schema);
  const fields = [...new Set([...Object.keys(props), ...Object.keys(baseline)])];
  if (fields.length) {
    out.push({
      what: "every field {}",
      expect: "refuse",
      field: fields.join("|"),
      body: json(Object.fromEntries(fields.map((f) => [f, {}]))),
    });
  }
  for (const f of fields) {
    for (const [what, v] of [
      ["{}", {}],
      ["[[]]", [[]]],
    ] as const) {
      out.push({ what: `${f}: ${what}`, expect: "refuse", field: f, body: json({ ...baseline, [f]: v }) });
    }
  }
  // 2 MB where a string goes: every string the schema names at the top, and every string leaf of the baseline.
  const leaves = new Map<string, string[]>();
  for (const [f, s] of Object.entries(props)) if (takesString(s)) leaves.set(f, [f]);
  for (const path of stringLeaves(baseline)) leaves.set(path.join("."), path);
  for (const [name, path] of leaves) {
    const field = path.filter((s) => !/^\d+$/.test(s)).at(-1);
    out.push({ what: `${name}: 2 MB`, expect: "refuse", field, body: json(setAt(baseline, path, HUGE)) });
    // PostgreSQL stores neither in text or jsonb: the statement would fail (a 500) if it got that far.
    out.push({ what: `${name}: NUL`, expect: "refuse", field, body: json(setAt(baseline, path, "a\u0000b")) });
    out.push({ what: `${name}: an unpaired surrogate`, expect: "refuse", field, body: json(setAt(baseline, path, "a\ud800b")) });
  }
  return out;
}
