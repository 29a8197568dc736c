import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The docs name files to read next; a path that moved or never existed sends the reader nowhere. Every repository
// path they mention must exist (a module may be named without its extension, as an import names it).

const root = path.resolve(import.meta.dirname, "../..");
const DOCS = ["README.md", "ARCHITECTURE.md", "docs/benchmarks.md"];

/** A path into the repository's own folders, up to the first character that cannot be part of one. */
const PATH = /(?<![\w./@-])(?:lib|app|components|scripts|tests|bin|prisma|docs)\/[^\s`'"),;:|]*/g;

/** Written by runs, not kept in the repository. */
const OUTPUTS = ["tests/artifacts/"];

/** The repository paths `text` mentions: placeholders (`lib/sources/<type>/`) and globs are not paths. */
function mentionedPaths(text: string): string[] {
  return [...new Set(text.match(PATH) ?? [])]
    .map((p) => p.split("](")[0]!.replace(/\.+$/, ""))
    .filter((p) => !/[<>*{}…]/.test(p) && !OUTPUTS.some((o) => p.startsWith(o)));
}

const exists = (p: string) => ["", ".ts", ".tsx", ".mjs"].some((ext) => existsSync(path.join(root, p.replace(/\/$/, "") + ext)));

describe("paths the docs mention", () => {
  it.each(DOCS)("%s names only paths that exist", (doc) => {
    const text = readFileSync(path.join(root, doc), "utf8");
    const paths = mentionedPaths(text);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !exists(p))).toEqual([]);
  });

  it("reads a path out of prose and code spans, and leaves placeholders out", () => {
    const text =
      "boxes (`lib/dead-letters/store/write-records/stored-box.ts`), see lib/api/handler.ts. And `lib/sources/<type>/`, app/api/**/route.ts, [the figures](docs/benchmarks.md)";
    expect(mentionedPaths(text)).toEqual([
      "lib/dead-letters/store/write-records/stored-box.ts",
      "lib/api/handler.ts",
      "docs/benchmarks.md",
    ]);
    expect(exists("lib/dead-letters/store/write-records/stored-box.ts")).toBe(false);
    expect(exists("lib/api/handler")).toBe(true);
  });
});
