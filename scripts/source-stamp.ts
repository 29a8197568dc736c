// Which sources a production build was made from. The server runs its build (.next), but ingest's normalizing
// threads load lib/ from source at run time (lib/dead-letters/ingest/normalize-worker.mjs): after `git pull`
// without a rebuild the two disagree — the built store and the threads' row format, say. ensureBuild() builds
// when .next holds no build of the current sources, and stamps the build with the sources it was made from.
// `npm start`, the e2e runner and the benchmarks call it; `npm run build` is `tsx scripts/source-stamp.ts --build`.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { refreshRouteModules } from "./route-modules";

const ROOT = process.cwd();
const DIRS = ["app", "components", "lib", "public"];
const FILES = [
  "package-lock.json",
  "next.config.ts",
  "instrumentation.ts",
  "proxy.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "prisma/schema.prisma",
];
/** lib/generated follows prisma/schema.prisma; tests and dotfiles (editor swap files) are not built. */
const SKIP = new Set(["node_modules", ".next", "generated"]);
const NOT_BUILT = /(?:^\.|\.test\.tsx?$)/;
const BUILD_ID = join(ROOT, ".next", "BUILD_ID");
const STAMP_FILE = join(ROOT, ".next", "redrive-source-stamp");
const NEXT_BIN = join(ROOT, "node_modules", "next", "dist", "bin", "next");

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
  for (const f of files) hash.update(relative(ROOT, f)).update("\0").update(readFileSync(f)).update("\0");
  return hash.digest("hex");
}

/** Whether .next holds a production build, and whether it was built from the sources as they are now. */
export function buildState(): "missing" | "stale" | "current" {
  if (!existsSync(BUILD_ID)) return "missing";
  if (!existsSync(STAMP_FILE)) return "stale";
  return readFileSync(STAMP_FILE, "utf8").trim() === sourceStamp() ? "current" : "stale";
}

/**
 * Runs `next build` unless .next holds a build of the current sources (`force`: always), then stamps it with the
 * sources as they were BEFORE the build started — edited (or pulled) while it ran, they make the next call build
 * again instead of passing for built. Throws when the build fails.
 */
export async function ensureBuild(opts: { env: NodeJS.ProcessEnv; force?: boolean; log?: (msg: string) => void }): Promise<void> {
  if (refreshRouteModules(ROOT)) opts.log?.("the route files changed: rewrote app/api/route-modules.generated.ts");
  const stamp = sourceStamp();
  const built = existsSync(BUILD_ID);
  const current = built && existsSync(STAMP_FILE) && readFileSync(STAMP_FILE, "utf8").trim() === stamp;
  if (current && !opts.force) return;
  opts.log?.(
    !built
      ? "no production build yet: running `next build` (once; takes a minute or two)"
      : current
        ? "running `next build`"
        : "the sources changed since the last build: running `next build` (takes a minute or two)",
  );
  const code = await new Promise<number>((resolve) => {
    spawn(process.execPath, [NEXT_BIN, "build"], { stdio: "inherit", env: { ...opts.env, NODE_ENV: "production" } }).on(
      "exit",
      (c, signal) => resolve(c ?? (signal ? 1 : 0)),
    );
  });
  if (code !== 0) throw new Error(`next build failed with exit code ${code}`);
  writeFileSync(STAMP_FILE, `${stamp}\n`);
}

// --build: `npm run build`, always; --ensure: only when .next holds no build of the current sources (`npm test`
// builds for the e2e phase while the unit tests leave a core idle).
if (process.argv.includes("--build") || process.argv.includes("--ensure")) {
  await ensureBuild({
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    force: process.argv.includes("--build"),
    log: (m) => console.log(`[build] ${m}`),
  }).catch((e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
