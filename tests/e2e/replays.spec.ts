import type { ChildProcess } from "node:child_process";
import { expect, test, type Page } from "@playwright/test";
import { signIn, startWorker, stopWorker } from "./fixtures";

// A supervisor's replay, as a user does it: approve some records, create a paced batch in the UI, have a
// second supervisor approve and start it, watch it progress live, pause, resume, cancel. The batch is drained
// by a real worker process (`redrive worker`, as on any extra machine) against the test database.

const SHOTS = "tests/artifacts/screenshots";
let worker: ChildProcess | null = null;

test.beforeAll(() => {
  worker = startWorker();
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
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("approved");
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
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("approved");
  await page.getByRole("button", { name: "Start" }).click();
  await expect(page.getByTestId("batch-status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.getByRole("row").filter({ hasText: "applied" })).toHaveCount(3);
  await expect(page.getByRole("row").filter({ hasText: "pending" })).toHaveCount(0);
});
