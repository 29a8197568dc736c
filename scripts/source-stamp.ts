// Which sources a production build was made from. The server runs its build (.next), but ingest's normalizing
// threads load lib/ from source at run time (lib/dead-letters/ingest/normalize-worker.mjs): after `git pull`
// without a rebuild the two disagree — the built store and the threads' row format, say. `npm start` compares
// this stamp with the sources and rebuilds when they differ; `npm run build` writes it after `next build`.
//   tsx scripts/source-stamp.ts --take    takes the stamp of the sources about to be built (before next build)
//   tsx scripts/source-stamp.ts --write   records it in .next once the build succeeded
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = process.cwd();
const DIRS = ["app", "components", "lib", "public"];
const FILES = ["package-lock.json", "next.config.ts", "instrumentation.ts", "proxy.ts", "postcss.config.mjs", "tsconfig.json", "prisma/schema.prisma"];
/** lib/generated follows prisma/schema.prisma; tests and dotfiles (editor swap files) are not built. */
const SKIP = new Set(["node_modules", ".next", "generated"]);
const NOT_BUILT = /(?:^\.|\.test\.tsx?$)/;
export const STAMP_FILE = join(ROOT, ".next", "redrive-source-stamp");

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || NOT_BUILT.test(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile()) out.push(path);
  }
}

/** SHA-256 over the build's inputs, path and content, in a stable order (~600 files: tens of ms). */
export function sourceStamp(): string {
  const files: string[] = [];
  for (const d of DIRS) if (existsSync(join(ROOT, d))) walk(join(ROOT, d), files);
  for (const f of FILES) if (existsSync(join(ROOT, f))) files.push(join(ROOT, f));
  files.sort();
  const hash = createHash("sha256");
  for (const f of files) {
    hash.update(relative(ROOT, f)).update("\0").update(readFileSync(f)).update("\0");
  }
  return hash.digest("hex");
}

/** True when .next holds a build stamped with the current sources. */
export function buildIsCurrent(): boolean {
  if (!existsSync(join(ROOT, ".next", "BUILD_ID")) || !existsSync(STAMP_FILE)) return false;
  return readFileSync(STAMP_FILE, "utf8").trim() === sourceStamp();
}

/**
 * Records `stamp` — taken BEFORE the build started, so sources edited (or pulled) while it ran make the next
 * start rebuild instead of passing for built.
 */
export function writeStamp(stamp: string): void {
  writeFileSync(STAMP_FILE, `${stamp}\n`);
}

// `npm run build` = `tsx scripts/source-stamp.ts --take && next build && tsx scripts/source-stamp.ts --write`
const PENDING = join(ROOT, ".next-source-stamp");
if (process.argv.includes("--take")) writeFileSync(PENDING, sourceStamp());
if (process.argv.includes("--write")) {
  writeStamp(existsSync(PENDING) ? readFileSync(PENDING, "utf8").trim() : sourceStamp());
  rmSync(PENDING, { force: true });
}
