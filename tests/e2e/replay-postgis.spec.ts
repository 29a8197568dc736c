import type { ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { createPostgisDatabase, findPostgisServer, type PostgisDatabase } from "../support/postgis-server";
import { approveBatch, signIn, startWorker, stopWorker } from "./fixtures";

// A supervisor replays approved spatial records into a PostGIS table from the replay form: the PostGIS fields,
// the batch page showing the target with its URL redacted, four-eyes approval, and the features in the table
// afterwards — valid, each key once, drained by a real worker process.

const SHOTS = "tests/artifacts/screenshots";
// The server seals the URL with this key (playwright.config.ts); the worker unseals it with the same.
const SEALING_KEY = "e2e-sealing-key-0123456789abcdefghijklmnopqrstuvwxyz";
let worker: ChildProcess | null = null;
let gis: PostgisDatabase | null = null;

test.beforeAll(async () => {
  // The test server if it offers PostGIS, else the machine's PostgreSQL 15 (tests/support/postgis-server.ts).
  const found = await findPostgisServer(process.env.E2E_DATABASE_URL);
  if ("reason" in found) throw new Error(found.reason);
  gis = await createPostgisDatabase(found.url, `${new URL(process.env.E2E_DATABASE_URL ?? "").pathname.slice(1)}_gis`);
  const target = gis.pool;
  await target.query("CREATE SCHEMA gis");
  await target.query(
    "CREATE TABLE gis.features (id text PRIMARY KEY, geom geometry(Geometry, 4326) NOT NULL, observed_at timestamptz NOT NULL, props jsonb)",
  );
  worker = startWorker(["--no-maintenance", "--no-pull"], { REDRIVE_SECRET_KEY: SEALING_KEY });
});

test.afterAll(async () => {
  await stopWorker(worker);
  await gis?.drop();
});

test("replay approved spatial records into a PostGIS table from the form", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  await signIn(page, "supervisor", "/replays");
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&class=transient&limit=12");
  const ids = ((await list.json()) as { items: { id: string }[] }).items.map((r) => r.id);
  expect(ids.length).toBe(12);
  const bulk = await page.request.post("/api/dead-letters/bulk", { data: { action: "approve", ids }, headers: { origin: baseURL ?? "" } });
  expect(bulk.ok()).toBe(true);

  await page.goto(`/replays/new?ids=${ids.join(",")}`);
  await page.getByLabel("Rate (records/s)").fill("100");
  await page.getByRole("radio", { name: "PostGIS table" }).check();
  const fields = page.getByTestId("postgis-sink");
  await fields.getByLabel("Database URL").fill(gis?.url ?? "");
  await fields.getByLabel("Table").fill("gis.features");
  await fields.getByLabel("Properties column (jsonb)").fill("props");
  await expect(fields.getByLabel("Id column")).toHaveValue("id");
  await page.screenshot({ path: `${SHOTS}/replay-new-postgis.png`, fullPage: true });
  await page.getByRole("button", { name: "Create draft batch of 12" }).click();
  await expect(page).toHaveURL(/\/replays\/\d+$/);
  const batchUrl = new URL(page.url()).pathname;
  await expect(page.getByText(/PostGIS postgres(ql)?:\/\/redacted@[^ ]+, table gis\.features/)).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, "supervisor2", batchUrl);
  await approveBatch(page);
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("completed", { timeout: 60_000 });
  await page.screenshot({ path: `${SHOTS}/replay-postgis-completed.png`, fullPage: true });

  const view = (await (await page.request.get(`/api${batchUrl}`)).json()) as {
    counts: { applied: number; deduped: number; dropped: number; poison: number };
    sink: { url: string };
  };
  // Re-validation may drop a record that cannot be repaired, and a demo feature without an id has nothing to be
  // upserted by (poison, saying so); the rest reached the table.
  expect(view.counts.applied + view.counts.deduped + view.counts.dropped + view.counts.poison).toBe(12);
  if (view.counts.poison > 0) {
    const items = (await (await page.request.get(`/api${batchUrl}/items?status=poison`)).json()) as { items: { lastError: string }[] };
    for (const item of items.items) expect(item.lastError).toMatch(/the feature has no id/);
  }
  expect(view.counts.applied).toBeGreaterThan(0);
  expect(view.sink.url).not.toContain("postgres@");
  const rows = await gis!.pool.query<{ n: number; valid: number; keys: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE ST_IsValid(geom))::int AS valid,
       (SELECT count(*)::int FROM gis.redrive_applied_key) AS keys FROM gis.features`,
  );
  // Each key once; one row per feature id (several readings of one feature leave its newest).
  expect(rows.rows[0]?.keys).toBe(view.counts.applied);
  expect(rows.rows[0]?.valid).toBe(rows.rows[0]?.n);
  expect(rows.rows[0]?.n).toBeGreaterThan(0);
});
