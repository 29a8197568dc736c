import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { createClient } from "redis";
import { approveBatch, ingestAsProducer, signIn, startWorker, stopWorker, uniqueSuffix, type DemoRole } from "./fixtures";

// A supervisor's replay, as a user does it: approve some records, create a paced batch in the UI, have a
// second supervisor approve and start it, watch it progress live, pause, resume, cancel. The batch is drained
// by a real worker process (`redrive worker`, as on any extra machine) against the test database.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });
let worker: ChildProcess | null = null;

// Replays only: the spec pulls its sources itself (Pull now), which a worker's puller holding the lease would refuse.
test.beforeAll(() => {
  worker = startWorker(["--no-pull"]);
});

test.afterAll(() => stopWorker(worker));

async function count(page: Page, outcome: string): Promise<number> {
  return Number((await page.getByTestId(`count-${outcome}`).innerText()).replace(/,/g, ""));
}

test("create in the UI, four-eyes approval, paced live progress, pause, resume, cancel", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  await signIn(page, "supervisor", "/replays");
  // 40 spatial records worth replaying (valid or repairable), approved through the API as the supervisor.
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&class=transient&limit=40");
  expect(list.ok()).toBe(true);
  const ids = ((await list.json()) as { items: { id: string }[] }).items.map((r) => r.id);
  expect(ids.length).toBe(40);
  const bulk = await page.request.post("/api/dead-letters/bulk", {
    data: { action: "approve", ids },
    headers: { origin: baseURL ?? "" },
  });
  expect(bulk.ok()).toBe(true);

  // The creation page says how many, in what order, and how long at the rate.
  await page.goto(`/replays/new?ids=${ids.join(",")}`);
  await page.getByLabel("Rate (records/s)").fill("4");
  await expect(page.getByText(/10 s/).first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/replay-new.png` });
  await page.getByRole("button", { name: "Create draft batch of 40" }).click();
  await expect(page).toHaveURL(/\/replays\/\d+$/);
  const batchUrl = new URL(page.url()).pathname;
  await expect(page.getByTestId("batch-status")).toHaveText("draft");
  // The creator cannot approve their own batch.
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByText(/You created this batch: another supervisor must approve it/)).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, "supervisor2", batchUrl);
  await approveBatch(page);
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("running");

  // Live progress without a reload, at the set pace (4/s: 40 records take ~10 s).
  await expect.poll(() => count(page, "applied"), { timeout: 20_000 }).toBeGreaterThan(4);
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("paused");
  const atPause = await count(page, "applied");
  await page.waitForTimeout(2_000);
  // Nothing more than what was in flight when the pause landed.
  expect(await count(page, "applied")).toBeLessThanOrEqual(atPause + 2);
  await page.screenshot({ path: `${SHOTS}/replay-paused.png`, fullPage: true });

  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("running");
  await expect.poll(() => count(page, "applied"), { timeout: 20_000 }).toBeGreaterThan(atPause + 2);
  await page.getByRole("button", { name: "Cancel batch" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel batch" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("cancelled");
  // Items a worker had in flight when the cancel landed are counted when their page commits: the page keeps
  // following the batch until nothing is pending (it read 13 while the API, a moment later, said 14).
  await expect.poll(() => count(page, "pending"), { timeout: 10_000 }).toBe(0);
  const applied = await count(page, "applied");
  expect(applied).toBeLessThan(40);
  await page.screenshot({ path: `${SHOTS}/replay-cancelled.png`, fullPage: true });

  // The API agrees with the page.
  const api = await page.request.get(`/api${batchUrl}`);
  const view = (await api.json()) as { status: string; counts: Record<string, number> };
  expect(view.status).toBe("cancelled");
  expect(view.counts.applied).toBe(applied);
});

test("when a batch finishes, its items show how each ended, not what the last poll before the end saw", async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await signIn(page, "supervisor", "/replays");
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&class=transient&limit=3");
  const ids = ((await list.json()) as { items: { id: string }[] }).items.map((r) => r.id);
  expect(ids.length).toBe(3);
  const headers = { origin: baseURL ?? "" };
  expect((await page.request.post("/api/dead-letters/bulk", { data: { action: "approve", ids }, headers })).ok()).toBe(true);
  const created = await page.request.post("/api/replays", { data: { ids, sink: { type: "ledger" }, ratePerSecond: 50 }, headers });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, "supervisor2", `/replays/${batchId}`);
  await expect(page.getByRole("row").filter({ hasText: "pending" })).toHaveCount(3);

  // Until the page has been told the batch completed, every items poll answers what the table showed before the
  // start (as a poll that raced the end would): the table must still come to show the outcomes.
  const stale = await (await page.request.get(`/api/replays/${batchId}/items?limit=50`)).text();
  // The flag is set before the page receives the answer that says so, so the refetch that answer causes is real.
  let toldCompleted = false;
  await page.route(`**/api/replays/${batchId}`, async (route) => {
    const real = await route.fetch();
    const body = await real.text();
    if (real.ok() && body.includes('"status":"completed"')) toldCompleted = true;
    await route.fulfill({ response: real, body });
  });
  await page.route(`**/api/replays/${batchId}/items**`, async (route) => {
    const real = await route.fetch();
    await route.fulfill({ response: real, body: toldCompleted ? await real.text() : stale });
  });
  await approveBatch(page);
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.getByRole("row").filter({ hasText: "applied" })).toHaveCount(3);
  await expect(page.getByRole("row").filter({ hasText: "pending" })).toHaveCount(0);
});

/** A page signed in as `role` in a context of its own (two supervisors at once: four eyes). */
async function as(browser: Browser, role: DemoRole, next = "/dead-letters"): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, role, next);
  return page;
}

function star(x: number, y: number, d = 0.01): unknown {
  const pts = [0, 2, 4, 1, 3, 0].map((k) => {
    const a = Math.PI / 2 + (k * 2 * Math.PI) / 5;
    return [x + d * Math.cos(a), y + d * Math.sin(a)];
  });
  return { type: "Polygon", coordinates: [pts] };
}

test("after its replay a record shows the batch, the repair it was approved and sent with, and the geometry sent", async ({
  page,
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const source = `e2e-sent-${uniqueSuffix()}`;
  const id = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source,
    idempotency_key: `${source}-1`,
    observed_at: new Date().toISOString(),
    feature: { type: "Feature", id: `${source}-1`, geometry: star(2.6, 48.85), properties: {} },
    dead_letter_reason: "shapely.errors.GEOSException: IllegalArgumentException: Invalid polygon: Self-intersection",
  });
  await signIn(page, "supervisor", "/replays");
  const headers = { origin: baseURL ?? "" };
  const preview = (await (await page.request.get(`/api/dead-letters/${id}/repair-preview?method=structure&policy=accept`)).json()) as {
    digest: string;
    warnings?: string[];
  };
  const before = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as { version: number; analysis: { method: string } };
  expect(before.analysis.method).toBe("linework"); // the source's default, which the page must not show once replayed
  const approved = await page.request.post(`/api/dead-letters/${id}/actions`, {
    data: {
      action: "approve",
      version: before.version,
      repair: { method: "structure", policy: "accept", digest: preview.digest, acknowledged: ["Area −23.6%"] },
    },
    headers,
  });
  expect(approved.ok()).toBe(true);
  const created = await page.request.post("/api/replays", { data: { ids: [id], sink: { type: "ledger" }, ratePerSecond: 50 }, headers });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  const second = await as(browser, "supervisor2", `/replays/${batchId}`);
  await approveBatch(second);
  await second.getByRole("button", { name: "Start" }).click();
  await expect(second.getByTestId("batch-status")).toHaveText("completed", { timeout: 30_000 });
  await second.context().close();

  const record = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as {
    status: string;
    approvedRepair: { method: string } | null;
    lastReplay: { batchId: string; repair: { method: string; policy: string; from: string } | null; geometry: unknown } | null;
  };
  expect(record.status).toBe("replayed");
  expect(record.approvedRepair).toMatchObject({ method: "structure" });
  expect(record.lastReplay).toMatchObject({ batchId, repair: { method: "structure", policy: "accept", from: "approval" } });
  expect(record.lastReplay?.geometry).not.toBeNull();

  await page.goto(`/dead-letters/${id}`);
  const said = page.getByTestId("replayed-repair");
  await expect(said).toContainText(`Replayed in batch #${batchId} with structure / accept`);
  await expect(said).toContainText("the repair it was approved with");
  await expect(page.getByText("Repair to approve:")).toHaveCount(0);
  await expect(page.getByRole("alert", { name: "Repair warnings" })).toContainText("Sent with this repair");
  await expect(page.getByRole("combobox", { name: "Repair method" })).toHaveCount(0);
  await expect(page.getByText(`Sent in batch #${batchId} (structure / accept)`)).toBeVisible();
  await expect(page.getByRole("region", { name: "Geometry sent" })).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  await page.waitForTimeout(500); // the last map frame
  await page.screenshot({ path: `${SHOTS}/replayed-record-sent.png`, fullPage: true });
});

test("back to origin: the form starts there from a source's records, lists the destinations, refuses one outside the source's; the approval page lists them", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const run = `redrive-e2e-dest:${randomBytes(4).toString("hex")}`;
  const stream = `${run}:parcels`;
  const dlq = `${run}:parcels:dlq`;
  const victim = `${run}:payments`;
  const name = `dest-${run.slice(-8)}`;
  const redis = createClient({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", socket: { reconnectStrategy: false } });
  await redis.connect();
  let admin: Page | null = null;
  try {
    await redis.xAdd(stream, "*", { body: "{}" });
    // Two dead letters naming their own stream; a third, written straight into the dead-letter stream, names another.
    for (const [i, target] of [stream, stream, victim].entries()) {
      const envelope = {
        kind: "spatial",
        source: "parcel-service",
        idempotency_key: `${run}-${i}`,
        observed_at: new Date(Date.now() + i).toISOString(),
        feature: { type: "Feature", id: `${run}-${i}`, geometry: { type: "Point", coordinates: [2.35 + i / 10, 48.85] }, properties: {} },
        dead_letter_reason: "geocoder timed out",
      };
      await redis.xAdd(dlq, "*", { body: JSON.stringify(envelope), source_stream: target });
    }

    admin = await as(browser, "admin", "/sources");
    const origin = { origin: new URL(admin.url()).origin };
    const added = await admin.request.post("/api/sources", {
      data: {
        name,
        type: "redis",
        url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        kind: "spatial",
        options: { stream, group: "workers", dlqStream: dlq, destinations: [`${run}:parcel*`] },
      },
      headers: origin,
    });
    expect(added.status(), await added.text()).toBe(201);
    const pulled = await admin.request.post(`/api/sources/${name}/pull`, { data: {}, headers: origin });
    expect(pulled.ok(), await pulled.text()).toBe(true);

    await signIn(page, "supervisor", `/dead-letters?origin=${name}`);
    const list = (await (await page.request.get(`/api/dead-letters?origin=${name}&limit=10`)).json()) as {
      items: { id: string; idempotencyKey: string }[];
    };
    expect(list.items).toHaveLength(3);
    const forged = list.items.find((r) => r.idempotencyKey === `${run}-2`)!.id;
    const good = list.items.filter((r) => r.id !== forged).map((r) => r.id);
    const headers = { origin: new URL(page.url()).origin };
    const bulk = await page.request.post("/api/dead-letters/bulk", { data: { action: "approve", ids: [...good, forged] }, headers });
    expect(bulk.ok()).toBe(true);

    // Opened from the source's records: back to origin is chosen, its own help below, the destinations listed.
    await page.goto(`/replays/new?origin=${name}&status=approved`);
    await expect(page.getByRole("radio", { name: "Back to origin" })).toBeChecked();
    await expect(page.getByTestId("sink-help")).toContainText("Back to origin:");
    const destinations = page.getByTestId("origin-destinations");
    await expect(destinations.getByRole("row").filter({ hasText: stream })).toContainText("2");
    await expect(destinations.getByRole("row").filter({ hasText: victim })).toContainText("outside the source's destinations");
    await page.screenshot({ path: `${SHOTS}/replay-new-destinations.png`, fullPage: true });
    // Each sink says what it does itself: never the origin's words under another sink.
    await page.getByRole("radio", { name: "Built-in ledger" }).check();
    await expect(page.getByTestId("sink-help")).toContainText("Built-in ledger:");
    await expect(page.getByTestId("sink-help")).not.toContainText("Back to origin");
    await page.getByRole("radio", { name: "HTTP" }).check();
    await expect(page.getByTestId("sink-help")).toContainText("HTTP:");
    await page.getByRole("radio", { name: "Back to origin" }).check();
    await page.getByRole("button", { name: "Create draft batch of 3" }).click();
    await expect(page.getByText(new RegExp(`record ${forged} would be published to "${victim}"`)).first()).toBeVisible();

    // Without the forged record: created, and the second supervisor sees where the messages go before approving.
    const created = await page.request.post("/api/replays", { data: { ids: good, sink: { type: "origin" }, ratePerSecond: 10 }, headers });
    expect(created.status(), await created.text()).toBe(201);
    const batchId = ((await created.json()) as { id: string }).id;
    const second = await as(browser, "supervisor2", `/replays/${batchId}`);
    const region = second.getByRole("region", { name: "Destinations" });
    await expect(region).toContainText("Where the messages go back to: 1 destination");
    await expect(region.getByRole("row").filter({ hasText: stream })).toContainText("2");
    await expect(second.getByRole("button", { name: "Approve" })).toBeVisible();
    await second.screenshot({ path: `${SHOTS}/replay-approval-destinations.png`, fullPage: true });
    const api = (await (await second.request.get(`/api/replays/${batchId}`)).json()) as { destinations: unknown };
    expect(api.destinations).toEqual([{ source: name, destination: stream, count: 2, allowed: true }]);
    await second.request.post(`/api/replays/${batchId}/cancel`, { data: {}, headers: { origin: new URL(second.url()).origin } });
    await second.context().close();
  } finally {
    if (admin) {
      await admin.request.delete(`/api/sources/${name}`, { headers: { origin: new URL(admin.url()).origin } }).catch(() => undefined);
      await admin.context().close();
    }
    for await (const found of redis.scanIterator({ MATCH: `${run}*`, COUNT: 1000 })) if (found.length) await redis.del(found);
    await redis.quit();
  }
});
