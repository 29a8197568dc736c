import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SINK_TYPES } from "../../lib/replay/sinks/registry";
import { SOURCE_TYPES } from "../../lib/sources/registry";

// The sink and broker types are listed once, in their registries; every other path asks them. The lint rule
// (eslint.config.mjs) refuses a comparison with a type's name and a `case` on one; this test refuses the other ways a
// second list starts: a set of two or more type names written out in code (a union type, an array, an object's or a
// type's keys, switch labels), a text naming two or more of them (a help, a summary, a page's sentence), and in the
// docs a list of them written as code (`a|b|c`, `a, b`) that leaves a registered one out.

const root = path.resolve(import.meta.dirname, "../..");

const KINDS = { sink: SINK_TYPES, source: SOURCE_TYPES } as const;
type Kind = keyof typeof KINDS;

/** The lists themselves. */
const REGISTRIES = [
  "lib/replay/sinks/registry.ts",
  "lib/replay/sinks/registry.server.ts",
  "lib/sources/registry.ts",
  "lib/sources/registry.server.ts",
];

interface Finding {
  file: string;
  line: number;
  kind: Kind;
  /** what holds them: union, array, object keys, type keys, switch, text */
  holder: string;
  names: string[];
}

/** Places that name several types for a reason of their own; each must still be found (a stale entry fails). */
const ALLOWED: { file: string; kind: Kind; names: string[]; why: string }[] = [
  {
    file: "app/api/rules/route.ts",
    kind: "sink",
    names: ["http", "ledger", "origin"],
    why: "examples of how a rule names its sink (the type alone, or a configuration); not a list of the types",
  },
  {
    file: "components/sources/source-list.tsx",
    kind: "source",
    names: ["nats", "redis"],
    why: "what removing a source deletes on the broker: only these two types create something there",
  },
  {
    file: "lib/cli/commands/sources.ts",
    kind: "source",
    names: ["kafka", "nats", "redis", "sqs"],
    why: "`source add --url`'s help, one URL form per type written out; not yet from the plugs (urlPlaceholder is an example URL, not this text)",
  },
];

/** Lists of type names in the docs that leave some out on purpose. */
const ALLOWED_DOC_LISTS: { file: string; list: string; why: string }[] = [
  { file: "README.md", list: "ledger\\|http", why: "`npm run test:chaos --only`: the sinks the chaos run drives" },
  { file: "README.md", list: "kafka,sqs", why: "an example choice of BENCH_SOURCE_BROKERS" },
  { file: "docs/benchmarks.md", list: "rabbitmq,redis", why: "the brokers a recorded benchmark ran against" },
];

const typeNames = (kind: Kind, words: readonly string[]) =>
  [...new Set(words.map((w) => w.toLowerCase()).filter((w) => (KINDS[kind] as readonly string[]).includes(w)))].sort();

/** Every set or text of two or more type names of one kind in a TypeScript source. */
function typeLists(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: Finding[] = [];
  const add = (node: ts.Node, holder: string, words: readonly string[]) => {
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const names = typeNames(kind, words);
      if (names.length >= 2)
        found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, kind, holder, names });
    }
  };
  const literal = (n: ts.Node): string[] => {
    if (ts.isStringLiteralLike(n)) return [n.text];
    if (ts.isLiteralTypeNode(n) && ts.isStringLiteralLike(n.literal)) return [n.literal.text];
    return [];
  };
  const key = (n: ts.ObjectLiteralElementLike | ts.TypeElement): string[] =>
    n.name && (ts.isIdentifier(n.name) || ts.isStringLiteralLike(n.name)) ? [n.name.text] : [];
  const visit = (node: ts.Node): void => {
    if (ts.isUnionTypeNode(node)) add(node, "union", node.types.flatMap(literal));
    else if (ts.isArrayLiteralExpression(node)) add(node, "array", node.elements.flatMap(literal));
    else if (ts.isObjectLiteralExpression(node)) add(node, "object keys", node.properties.flatMap(key));
    else if (ts.isTypeLiteralNode(node) || ts.isInterfaceDeclaration(node)) add(node, "type keys", node.members.flatMap(key));
    else if (ts.isSwitchStatement(node))
      add(
        node,
        "switch",
        node.caseBlock.clauses.flatMap((c) => (ts.isCaseClause(c) ? literal(c.expression) : [])),
      );
    // A text: a string, a template's parts, a page's words. An identifier (ledger_entry) is one word.
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isJsxText(node))
      add(node, "text", node.text.match(/[A-Za-z0-9_]+/g) ?? []);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Lists of type names written as code in a doc (`rabbitmq|nats`, `kafka,sqs`, `a | b`) that leave a registered one out. */
function partialDocLists(file: string, text: string): { file: string; line: number; list: string }[] {
  const found: { file: string; line: number; list: string }[] = [];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const name = `(?:${KINDS[kind].join("|")})`;
    const run = new RegExp(`\\b${name}\\b(?:[ \\t]*(?:\\\\?\\||,|/)[ \\t]*\\b${name}\\b)+`, "g");
    text.split("\n").forEach((l, i) => {
      for (const m of l.matchAll(run)) {
        const names = typeNames(kind, m[0].match(/[a-z0-9_]+/g) ?? []);
        if (names.length >= 2 && names.length < KINDS[kind].length) found.push({ file, line: i + 1, list: m[0] });
      }
    });
  }
  return found;
}

const tracked = (...dirs: string[]) =>
  execFileSync("git", ["ls-files", "-co", "--exclude-standard", ...dirs], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f !== "" && !f.startsWith("lib/generated/"));
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the sink and broker types are listed in their registries only", () => {
  const code = tracked("components", "lib", "app").filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !REGISTRIES.includes(f));
  const findings = code.flatMap((f) => typeLists(f, read(f)));
  const allowed = (f: Finding) => ALLOWED.some((a) => a.file === f.file && a.kind === f.kind && a.names.join() === f.names.join());

  it("components/, lib/ and app/ hold no other set or text of their names", () => {
    expect(
      findings.filter((f) => !allowed(f)).map((f) => `${f.file}:${f.line}: ${f.kind} types in a ${f.holder}: ${f.names.join(", ")}`),
      "ask the registry (lib/replay/sinks/registry.ts, lib/sources/registry.ts), or add an entry to ALLOWED saying why",
    ).toEqual([]);
  });

  it.each(ALLOWED.map((a) => [`${a.file} (${a.names.join(", ")})`, a] as const))("the allowed %s is still there", (_, a) => {
    expect(findings.some((f) => a.file === f.file && a.kind === f.kind && a.names.join() === f.names.join())).toBe(true);
  });

  const docs = ["README.md", "ARCHITECTURE.md", "prisma/schema.prisma", ...tracked("docs").filter((f) => f.endsWith(".md"))];
  const docLists = docs.flatMap((f) => partialDocLists(f, read(f)));

  it("the README, the docs and the schema's comments list every registered type where they list them", () => {
    expect(
      docLists
        .filter((d) => !ALLOWED_DOC_LISTS.some((a) => a.file === d.file && a.list === d.list))
        .map((d) => `${d.file}:${d.line}: ${d.list}`),
    ).toEqual([]);
  });

  it.each(ALLOWED_DOC_LISTS.map((a) => [`${a.file} ${a.list}`, a] as const))("the allowed %s is still there", (_, a) => {
    expect(docLists.some((d) => d.file === a.file && d.list === a.list)).toBe(true);
  });
});

describe("the scan", () => {
  const names = (code: string, file = "lib/example.ts") => typeLists(file, code).map((f) => `${f.holder}: ${f.names.join(",")}`);

  it("finds a second list however it is written", () => {
    expect(names('type O = "replay" | "http" | "origin";')).toEqual(["union: http,origin"]);
    expect(names('const NAMES: Record<string, string> = { rabbitmq: "RabbitMQ", nats: "NATS" };')).toEqual(["object keys: nats,rabbitmq"]);
    expect(names('const S = new Set(["kafka", "sqs"]);')).toEqual(["array: kafka,sqs"]);
    expect(names("interface P { ledger: number; postgis: number }")).toEqual(["type keys: ledger,postgis"]);
    expect(names('function f(t: string) { switch (t) { case "redis": return 1; case "nats": return 2; } return 0; }')).toEqual([
      "switch: nats,redis",
    ]);
    expect(names('const help = "--type rabbitmq|nats|redis";')).toEqual(["text: nats,rabbitmq,redis"]);
    expect(names("const s = `a RabbitMQ queue or a Redis stream ${x}`;")).toEqual(["text: rabbitmq,redis"]);
    expect(names("export const P = () => <p>to HTTP or PostGIS</p>;", "components/example.tsx")).toEqual(["text: http,postgis"]);
  });

  it("leaves one name, other words and identifiers alone", () => {
    expect(names('const a = plug.type === "http" ? ["origin"] : [];')).toEqual([]);
    expect(names("const q = `SELECT origin FROM ledger_entry`;")).toEqual([]);
    expect(names('const k = { type: "Point", coordinates: [] };')).toEqual([]);
  });

  it("finds a doc's list that leaves a type out", () => {
    expect(
      partialDocLists("README.md", "`--type rabbitmq\\|nats\\|redis`\n  /// rabbitmq | nats | redis | sqs\n").map((d) => d.list),
    ).toEqual(["rabbitmq\\|nats\\|redis", "rabbitmq | nats | redis | sqs"]);
    expect(partialDocLists("README.md", `--type ${SOURCE_TYPES.join("\\|")}; the ledger, HTTP and origin sinks`)).toEqual([]);
  });
});
