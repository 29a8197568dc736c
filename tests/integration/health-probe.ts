import { readFileSync } from "node:fs";
import { expect } from "vitest";

// Health probes while a heavy request runs (heavy-input.test.ts, heavy-routes.test.ts): the server here is the route
// handlers in the test's process, with the process's real worker pool, so the health route is called on the same
// event loop the heavy request runs on.

/** What "answers" means for a probe: the bar the issue set. */
export const HEALTH_BUDGET_MS = 200;

/**
 * A closed ring of `n` vertices around (5, 5), ~12 bytes a vertex as in the report (1e6 vertices: 11.9 MB).
 * Written straight into bytes: a million little strings kept in an array would leave this process a major GC
 * to run while the probes measure it.
 */
export function ringBytes(n: number): Buffer {
  const out = Buffer.alloc(n * 16 + 32);
  let at = out.write("[");
  for (let i = 0; i <= n; i++) {
    const a = (2 * Math.PI * (i % n)) / n;
    at += out.write(`${i ? "," : ""}[${(5 + Math.cos(a)).toFixed(2)},${(5 + Math.sin(a)).toFixed(2)}]`, at);
  }
  at += out.write("]", at);
  return out.subarray(0, at);
}

export interface Probed<T> {
  value: T;
  /** health answers while `work` ran: their latencies in ms, sorted */
  health: number[];
  /** the longest the event loop went without a turn, ms of wall time */
  loopMaxMs: number;
  /** the most CPU this thread spent between two turns of the event loop, ms (null where /proc is not there) */
  heldCpuMaxMs: number | null;
}

/** This thread's CPU time in ms (Linux, 10 ms resolution), or null elsewhere. */
function threadCpuMs(): number | null {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * Runs `work` while the health route is asked every 100 ms (a load balancer asks every few seconds), and a
 * 10 ms timer watches the event loop. A wall-clock gap between two ticks is the event loop held, by this
 * thread's work or by the machine not giving it a core (this box is shared: with nothing running here, health
 * took up to ~300 ms and the loop ~100 ms); the thread's CPU time across the gap tells the two apart.
 */
export async function whileProbingHealth<T>(work: () => Promise<T>): Promise<Probed<T>> {
  const { GET } = await import("../../app/api/health/route");
  const health: number[] = [];
  let done = false;
  const prober = (async () => {
    // From when the probe was due, not from when this loop got round to it: a client asking while the event
    // loop is held waits for the hold too.
    let due = performance.now();
    while (!done) {
      const res = await GET(new Request("http://localhost/api/health"), { params: Promise.resolve({}) });
      const answered = performance.now();
      health.push(answered - due);
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      due = answered + 100;
    }
  })();
  let loopMaxMs = 0;
  let heldCpuMaxMs: number | null = threadCpuMs() === null ? null : 0;
  let last = { wall: performance.now(), cpu: threadCpuMs() };
  const sample = () => {
    const now = { wall: performance.now(), cpu: threadCpuMs() };
    loopMaxMs = Math.max(loopMaxMs, now.wall - last.wall);
    if (heldCpuMaxMs !== null && now.cpu !== null && last.cpu !== null) heldCpuMaxMs = Math.max(heldCpuMaxMs, now.cpu - last.cpu);
    last = now;
  };
  const watch = setInterval(sample, 10);
  let value: T;
  try {
    value = await work();
  } finally {
    // The work's last stretch may end in microtasks only (no timer turn since): measured here, or it is lost.
    sample();
    done = true;
    clearInterval(watch);
    await prober;
    health.sort((a, b) => a - b);
  }
  return { value, health, loopMaxMs, heldCpuMaxMs };
}

export function report(what: string, run: Probed<unknown>): string {
  const h = run.health;
  const p95 = h[Math.min(h.length - 1, Math.floor(h.length * 0.95))] ?? NaN;
  return (
    `[heavy] ${what}: ${h.length} health probes, median ${h[h.length >> 1]?.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, ` +
    `slowest ${h.at(-1)?.toFixed(0)} ms; event loop held at most ${run.loopMaxMs.toFixed(0)} ms wall, ${run.heldCpuMaxMs ?? "?"} ms of this thread's CPU`
  );
}

/** The bar, on what this process controls: no turn of the event loop costs it 200 ms of CPU, and health answers. */
export function expectResponsive(run: Probed<unknown>, minProbes = 6): void {
  expect(run.health.length).toBeGreaterThanOrEqual(minProbes);
  if (run.heldCpuMaxMs !== null) expect(run.heldCpuMaxMs).toBeLessThan(HEALTH_BUDGET_MS);
  else expect(run.loopMaxMs).toBeLessThan(HEALTH_BUDGET_MS);
  // Most answers within the bar even on a loaded machine (the slowest depend on the machine, see above); a
  // request over within a probe or two is judged by the CPU it held alone.
  if (run.health.length >= 6 || run.heldCpuMaxMs === null) expect(run.health[run.health.length >> 1]).toBeLessThan(HEALTH_BUDGET_MS);
}
