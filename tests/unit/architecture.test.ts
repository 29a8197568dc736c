import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { SINK_TYPES } from "../../lib/replay/sinks/registry";
import { SOURCE_TYPES } from "../../lib/sources/registry";

// The tree's boundaries (ARCHITECTURE.md): each lint rule refuses an import that runs against the data path, and
// no two folders of lib/ import each other, directly or round a loop.

const root = path.resolve(import.meta.dirname, "../..");

async function restrictedImportErrors(filePath: string, specifier: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(`import { x } from "${specifier}";\nexport const y = x;\n`, {
    filePath: path.join(root, filePath),
  });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("lint boundaries", () => {
  it.each([
    ["lib/spatial/example.ts", "@/lib/db/client", "pure domains (spatial, afc) import no database"],
    ["lib/afc/example.ts", "pg", "pure domains (spatial, afc) import no database"],
    ["lib/afc/example.ts", "next/server", "pure domains (spatial, afc) import no database and no framework"],
    ["lib/spatial/example.ts", "../dead-letters/store/write-records", "pure domains import only"],
    ["lib/json/example.ts", "@/lib/dead-letters/filters", "neutral modules (json, time, vocabulary, errors) import no domain"],
    ["lib/time/example.ts", "../spatial/geojson", "neutral modules (json, time, vocabulary, errors) import no domain"],
    ["components/example.tsx", "@/lib/db/client", "components must not import the database layer"],
    ["components/example.tsx", "@prisma/client", "components must not import the database layer"],
    ["lib/replay/engine/example.ts", "@/lib/cli/context", "only the CLI knows the CLI"],
    ["lib/replay/engine/example.ts", "../../../cli/context", "only the CLI knows the CLI"],
    ["lib/dead-letters/query/example.ts", "next/headers", "framework glue (next/*, React) belongs in app/ or lib/api"],
    ["lib/dead-letters/contract/example.ts", "../../db/client", "a contract/ module ships to the browser"],
    ["lib/dead-letters/contract/example.ts", "server-only", "a contract/ module ships to the browser"],
    ["lib/dead-letters/contract/example.ts", "node:crypto", "a contract/ module ships to the browser"],
    ["lib/dead-letters/contract/example.ts", "next/server", "framework glue (next/*, React) belongs in app/ or lib/api"],
    ["lib/ops/example.ts", "@/lib/api/handler", "domains do not import the route glue in lib/api"],
  ])(
    "%s may not import %s",
    async (file, specifier, message) => {
      const errors = await restrictedImportErrors(file, specifier);
      expect(errors.join("\n")).toContain(message);
    },
    30_000,
  );

  it.each([
    ["lib/spatial/example.ts", "@/lib/json/lossless"],
    ["lib/afc/example.ts", "../time/parse-time"],
    ["lib/replay/engine/example.ts", "@/lib/db/client"],
    ["lib/api/example.ts", "next/server"],
    ["lib/dead-letters/contract/example.ts", "../../db/column-limits"],
    ["lib/dead-letters/contract/example.ts", "../filters"],
  ])(
    "%s may import %s",
    async (file, specifier) => {
      expect(await restrictedImportErrors(file, specifier)).toEqual([]);
    },
    30_000,
  );
});

const IMPORT = /(?:from|import)\s*\(?\s*"([^"]+)"/g;

/** The repository file a specifier names (relative or `@/`), or null for a package. */
function resolveImport(file: string, spec: string): string | null {
  if (!spec.startsWith(".") && !spec.startsWith("@/")) return null;
  const target = spec.startsWith("@/") ? spec.slice(2) : path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  return (
    ["", ".ts", ".tsx", ".mjs", "/index.ts"]
      .map((ext) => target + ext)
      .find((t) => /\.(ts|tsx|mjs)$/.test(t) && existsSync(path.join(root, t))) ?? null
  );
}

/**
 * What keeps a module out of the browser, among everything `start` reaches through its imports (values and types):
 * a module marked `import "server-only"`, or a Node built-in. Each finding names the chain of imports to it.
 */
function serverReach(start: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>([start]);
  const queue: string[][] = [[start]];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const file = chain.at(-1)!;
    for (const m of readFileSync(path.join(root, file), "utf8").matchAll(IMPORT)) {
      const spec = m[1]!;
      if (spec === "server-only" || spec.startsWith("node:")) {
        found.push([...chain, spec].join(" → "));
        continue;
      }
      const next = resolveImport(file, spec);
      if (next === null || seen.has(next)) continue;
      seen.add(next);
      queue.push([...chain, next]);
    }
  }
  return found;
}

describe("browser-safe contract", () => {
  const contracts = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "lib"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => /\/contract\/[^/]+\.ts$/.test(f) && !f.endsWith(".test.ts"));

  it("there is a contract to check", () => {
    expect(contracts).toContain("lib/dead-letters/contract/detail.ts");
  });

  it.each(contracts)("%s reaches no server-only module and no Node built-in", (file) => {
    expect(serverReach(file)).toEqual([]);
  });

  it("finds the server-only module a file reaches", () => {
    expect(serverReach("lib/dead-letters/query/extent.ts")).toContain("lib/dead-letters/query/extent.ts → server-only");
    expect(serverReach("app/api/dead-letters/extent/route.ts").some((chain) => chain.includes("lib/db/"))).toBe(true);
  });
});

async function syntaxErrors(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.message);
}

describe("plug registries", () => {
  const folders = (dir: string) =>
    readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();

  it("each sink and each broker type is a folder named for it, and each such folder is registered", () => {
    expect(folders("lib/replay/sinks")).toEqual([...SINK_TYPES].sort());
    expect(folders("lib/sources")).toEqual([...SOURCE_TYPES].sort());
  });

  const switchOnType = [
    'export const f = (sink: { type: string }) => (sink.type === "postgis" ? 1 : 0);\n',
    'export const f = (type: string) => (type !== "kafka" ? 1 : 0);\n',
    'export const f = (sinkType: string) => (sinkType === "origin" ? 1 : 0);\n',
    'export function f(d: { type: string }) {\n  switch (d.type) {\n    case "rabbitmq":\n      return 1;\n  }\n  return 0;\n}\n',
  ];

  it.each([
    "components/example.tsx",
    "components/replay/create-batch-form.tsx",
    "lib/cli/commands/example.ts",
    "lib/replay/batch/example.ts",
    "app/example/page.tsx",
  ])(
    "%s may not decide by a sink or source type",
    async (file) => {
      for (const code of switchOnType) {
        expect((await syntaxErrors(file, code)).join("\n"), code).toContain("a sink or source type is decided in its own folder");
      }
    },
    30_000,
  );

  it.each(["lib/replay/sinks/example.ts", "lib/sources/example.ts", "lib/sources/kafka/example.ts"])(
    "%s may",
    async (file) => {
      for (const code of switchOnType) expect(await syntaxErrors(file, code), code).toEqual([]);
    },
    30_000,
  );

  it("other comparisons of a type are not its business", async () => {
    expect(await syntaxErrors("components/example.tsx", 'export const f = (g: { type: string }) => g.type === "Point";\n')).toEqual([]);
  });
});

/** Folder → folders it imports (values and types alike), from every source file of lib/ (tests excluded). */
function folderGraph(): Map<string, Map<string, string>> {
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "lib"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && !f.includes(".test.") && !f.startsWith("lib/generated/"));
  const graph = new Map<string, Map<string, string>>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"((?:\.\.?\/|@\/)[^"]+)"/g)) {
      const spec = m[1]!;
      const target = spec.startsWith("@/") ? spec.slice(2) : path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (!target.startsWith("lib/")) continue;
      const resolved =
        ["", ".ts", ".tsx", ".mjs"].map((ext) => target + ext).find((t) => existsSync(path.join(root, t)) && !t.endsWith("/")) ?? target;
      const from = path.posix.dirname(file);
      const to = path.posix.dirname(resolved);
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      graph.get(from)!.set(to, `${file} → ${spec}`);
    }
  }
  return graph;
}

/** A folder counts as itself or its parent at `depth` (lib/x at 2, lib/x/y at 3). */
const atDepth = (folder: string, depth: number) => folder.split("/").slice(0, depth).join("/");
const contains = (a: string, b: string) => a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);

/** A loop of folders that import each other, with the imports that close it; null when there is none. */
function findCycle(edges: Map<string, Map<string, string>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (state.get(next) === "open") {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        return loop.slice(1).map((to, i) => `${loop[i]} → ${to} (${edges.get(loop[i]!)!.get(to)})`);
      }
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of edges.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

describe("folders", () => {
  const graph = folderGraph();

  it.each([2, 3, 4])("no import cycle between folders at depth %i", (depth) => {
    const edges = new Map<string, Map<string, string>>();
    for (const [from, targets] of graph) {
      for (const [to, example] of targets) {
        const a = atDepth(from, depth);
        const b = atDepth(to, depth);
        // A folder and its own subfolders share one area (a domain's root holds what its steps share).
        if (contains(a, b)) continue;
        if (!edges.has(a)) edges.set(a, new Map());
        edges.get(a)!.set(b, example);
      }
    }
    expect(findCycle(edges)).toBeNull();
  });

  it("finds a cycle when there is one", () => {
    const edges = new Map([
      ["lib/a", new Map([["lib/b", "lib/a/x.ts → ../b/y"]])],
      ["lib/b", new Map([["lib/a", "lib/b/y.ts → ../a/x"]])],
    ]);
    expect(findCycle(edges)).toEqual(["lib/a → lib/b (lib/a/x.ts → ../b/y)", "lib/b → lib/a (lib/b/y.ts → ../a/x)"]);
  });
});
