// `npm test`: lint, typecheck, unit, integration and e2e (each also an npm script of its own), stopping at the
// first phase that fails, with each phase's wall time printed at the end. Lint and typecheck run side by side:
// each is one single-threaded process, so on a 2-core machine the pair takes about as long as lint alone. Their
// output is held until each ends, so the two never interleave (so is the unit tests' and the build's).
import { spawn } from "node:child_process";

type Phase = string | string[];

// The e2e phase's production build runs beside the unit tests: vitest gives them one worker on two cores, and the
// build (`build:current`, nothing when .next already holds a build of these sources) takes the other.
const PHASES: Phase[] = [["lint", "typecheck"], ["test:unit", "build:current"], "test:integration", "test:e2e"];
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

interface Outcome {
  script: string;
  code: number;
  seconds: number;
}

function runScript(script: string, buffered: boolean): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(NPM, ["run", script], { stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.stderr?.on("data", (c: Buffer) => chunks.push(c));
    child.on("close", (code, signal) => {
      if (buffered) process.stdout.write(Buffer.concat(chunks));
      resolve({ script, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000 });
    });
  });
}

const times: string[] = [];
let failed: Outcome | undefined;
for (const phase of PHASES) {
  const scripts = typeof phase === "string" ? [phase] : phase;
  const started = Date.now();
  const outcomes = await Promise.all(scripts.map((s) => runScript(s, scripts.length > 1)));
  for (const o of outcomes) times.push(`${o.script} ${o.seconds.toFixed(0)} s`);
  if (scripts.length > 1) times.push(`(${scripts.join(" ‖ ")}: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  failed = outcomes.find((o) => o.code !== 0);
  if (failed) break;
}
console.log(`[test] ${times.join(", ")}`);
if (failed) {
  console.error(`[test] npm run ${failed.script} failed (exit ${failed.code})`);
  process.exit(failed.code);
}
