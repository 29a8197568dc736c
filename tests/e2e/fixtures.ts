import { spawn, type ChildProcess } from "node:child_process";
import { expect, type APIRequest, type Locator, type Page } from "@playwright/test";
import { e2eServerEnv } from "./server-env";

// Demo accounts seeded by scripts/e2e.ts (lib/auth/users.ts DEMO_ACCOUNTS).
export const DEMO = {
  analyst: { email: "analyst@demo.redrive.local", password: "demo-analyst-pass" },
  supervisor: { email: "supervisor@demo.redrive.local", password: "demo-supervisor-pass" },
  supervisor2: { email: "supervisor2@demo.redrive.local", password: "demo-supervisor2-pass" },
  auditor: { email: "auditor@demo.redrive.local", password: "demo-auditor-pass" },
  admin: { email: "admin@demo.redrive.local", password: "demo-admin-pass" },
  producer: { email: "producer@demo.redrive.local", password: "demo-producer-pass" },
} as const;

export type DemoRole = keyof typeof DEMO;

/**
 * A suffix that makes a key or name unique to this run. Not `Date.now()` in decimal: 13 digits pass the Luhn check
 * about one time in ten, and Redrive masks such a run as a card number wherever it shows the key or name (the
 * specs then could not find what they created).
 */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Signs in through the real form, landing on `next` (default: the dead-letter list). */
export async function signIn(page: Page, role: DemoRole, next = "/dead-letters"): Promise<void> {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("E-mail").fill(DEMO[role].email);
  await page.getByLabel("Password").fill(DEMO[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`${next.replace(/[/?]/g, "\\$&")}`));
}

/**
 * Where a lon/lat is on a map region, in page pixels: Web Mercator with 512-px tiles around the camera the map
 * reports on its element (components/map/map-view.tsx sets data-camera="lng,lat,zoom" on every moveend).
 */
export async function mapPixel(region: Locator, lon: number, lat: number): Promise<{ x: number; y: number }> {
  const camera = await region.getAttribute("data-camera");
  const [clng, clat, zoom] = (camera ?? "").split(",").map(Number) as [number, number, number];
  expect(Number.isFinite(zoom), `data-camera: ${camera}`).toBe(true);
  const box = await region.boundingBox();
  if (!box) throw new Error("the map region has no box");
  const world = 512 * 2 ** zoom;
  const mx = (x: number) => ((x + 180) / 360) * world;
  const my = (y: number) => (0.5 - Math.log(Math.tan(Math.PI / 4 + (y * Math.PI) / 360)) / (2 * Math.PI)) * world;
  return { x: box.x + box.width / 2 + mx(lon) - mx(clng), y: box.y + box.height / 2 + my(lat) - my(clat) };
}

/** Posts one envelope as the demo producer (its own API session) and returns the stored record's id. */
export async function ingestAsProducer(
  request: APIRequest,
  baseURL: string | undefined,
  envelope: Record<string, unknown>,
): Promise<string> {
  const producer = await request.newContext({ baseURL });
  try {
    const login = await producer.post("/api/auth/sign-in/email", {
      data: { email: DEMO.producer.email, password: DEMO.producer.password },
    });
    expect(login.ok()).toBe(true);
    const ingest = await producer.post("/api/dead-letters", { data: envelope });
    expect(ingest.ok()).toBe(true);
    return ((await ingest.json()) as { results: { id: string }[] }).results[0]!.id;
  } finally {
    await producer.dispose();
  }
}

/**
 * A real replay worker (`redrive worker`, as on any extra machine) on the spec's database, which drains the
 * batches the spec creates. `args` and `env` are added to the command's and the environment's.
 */
export function startWorker(args: string[] = [], env: Record<string, string> = {}): ChildProcess {
  // The server's keys and outbound allowances: the worker unseals the sources and sinks the server sealed, appends to
  // the same audit chain and connects to the same loopback targets.
  const { PORT: _port, REDRIVE_WORKER: _worker, NODE_ENV: _mode, ...shared } = e2eServerEnv(0);
  return spawn(process.execPath, ["bin/redrive.mjs", "worker", "--lease-ms", "5000", ...args], {
    env: { ...process.env, ...shared, DATABASE_URL: process.env.E2E_DATABASE_URL ?? "", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Stops a worker as an operator would (SIGTERM: it finishes what it holds) and waits until it has exited. */
export async function stopWorker(worker: ChildProcess | null): Promise<void> {
  if (!worker || worker.exitCode !== null) return;
  const exited = new Promise((r) => worker.once("exit", r));
  worker.kill("SIGTERM");
  await exited;
}

/**
 * Approves the batch open on `page` as its second supervisor. A click that lands before the page has hydrated does
 * nothing (the status stayed "draft" once on CI): it waits for the batch view to say it is interactive.
 */
export async function approveBatch(page: Page): Promise<void> {
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached();
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("approved");
}
