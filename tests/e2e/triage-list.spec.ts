import { mkdirSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";

// The list and record pages of issue #26: new arrivals announced without a reload, the count changing with the
// rows, facets usable at 1280×720, closing a ring on the map, selection kept across opening a record, and undo on
// a decision's toast.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

interface Detail {
  id: string;
  version: number;
  status: string;
  payload: Record<string, unknown>;
  failureClass: string;
}

async function record(page: Page, id: string): Promise<Detail> {
  return (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as Detail;
}

async function pendingIds(page: Page, query: string, limit = 5): Promise<string[]> {
  const res = await page.request.get(`/api/dead-letters?status=pending&limit=${limit}&${query}`);
  expect(res.ok()).toBe(true);
  const ids = ((await res.json()) as { items: { id: string }[] }).items.map((i) => i.id);
  expect(ids.length, `pending records for ${query}`).toBeGreaterThan(0);
  return ids;
}

// This machine is shared: a page can take longer than expect's 10 s to hydrate, and lazy chunks (the map editor)
// longer than that to arrive. The waits for them are longer; what is asserted is not.
const SLOW = { timeout: 30_000 };

async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached(SLOW);
}

// The first page a cold production server renders on a busy machine can take longer than a sign-in waits.
test.beforeAll(async ({ browser }, info) => {
  const page = await browser.newPage({ baseURL: info.project.use.baseURL });
  await page.goto("/sign-in?next=%2Fdead-letters", { timeout: 60_000 });
  await page.waitForURL(/sign-in/, { timeout: 60_000 });
  await page.request.get("/api/health", { timeout: 60_000 });
  await signIn(page, "analyst").catch(() => page.waitForURL(/\/dead-letters$/, { timeout: 60_000 }));
  await page.close();
});

test.beforeEach(async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "analyst").catch(() => page.waitForURL(/\/dead-letters$/, SLOW));
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached(SLOW);
});

test("a record arriving under the list's filter is announced within seconds, and shown on request", async ({
  page,
  playwright,
  baseURL,
}) => {
  const banner = page.getByRole("status").filter({ hasText: / new —/ });
  await expect(page.getByRole("row").nth(1)).toBeVisible();
  await page.waitForTimeout(1_000); // the list's watermark is taken as it is shown
  await expect(banner).toHaveCount(0);
  const id = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source: "e2e-arrival",
    idempotency_key: `arrival-${uniqueSuffix()}`,
    observed_at: new Date().toISOString(),
    feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35, 48.85] }, properties: {} },
    dead_letter_reason: "HTTP 503 from tiles-ingest (attempt 1)",
  });
  const started = Date.now();
  await expect(banner).toHaveText(/^1 new —/, { timeout: 10_000 });
  test.info().annotations.push({ type: "arrival → banner (ms)", description: String(Date.now() - started) });
  await expect(page.getByRole("checkbox", { name: `Select #${id}` })).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/list-new-arrivals-banner.png` });
  await banner.getByRole("button", { name: "show" }).click();
  await expect(page.getByRole("checkbox", { name: `Select #${id}` })).toBeVisible();
  await expect(banner).toHaveCount(0);
});

test("on the first filter change the matching count and the rows change together, with no '0 loaded' in between", async ({ page }) => {
  const line = page.locator("#dl-heading + p");
  await expect(line).toContainText("matching");
  const before = (await line.textContent())!;
  await page.evaluate(() => {
    const el = document.querySelector("#dl-heading + p")!;
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => seen.push(el.textContent ?? "")).observe(el, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole("checkbox", { name: "AFC" }).click();
  await expect(page).toHaveURL(/kind=afc/);
  // Settled: another count than before, and no longer updating (the first frames after the click may show neither).
  await expect
    .poll(async () => {
      const text = (await line.textContent()) ?? "";
      return text !== before && !text.includes("updating");
    }, SLOW)
    .toBe(true);
  const after = (await line.textContent())!;
  // Every row on screen is a tap once the count changed.
  const firstRow = page.getByRole("row").nth(1);
  await expect(firstRow).toBeVisible();
  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
  const pair = (t: string) => t.replace(" · updating…", "");
  expect(seen.length).toBeGreaterThan(0);
  for (const text of seen) expect([before, after], `header shown while filtering: ${text}`).toContain(pair(text));
  expect(seen.some((t) => / 0 loaded/.test(t))).toBe(false);
});

test("an observed date range shows as chips that remove it, and Clear all clears it", async ({ page }) => {
  await page.getByLabel("Observed from (UTC)").fill("2020-01-01");
  await expect(page).toHaveURL(/from=2020-01-01/);
  const chip = page.getByRole("button", { name: "Remove filter observed from: 2020-01-01" });
  await expect(chip).toBeVisible();
  await page.getByLabel("to", { exact: true }).fill("2099-12-31");
  await expect(page.getByRole("button", { name: "Remove filter observed to: 2099-12-31" })).toBeVisible();
  await chip.click();
  await expect(page).not.toHaveURL(/from=/);
  await expect(page.getByLabel("Observed from (UTC)")).toHaveValue("");
  await page.getByRole("button", { name: "Clear all" }).click();
  await expect(page).not.toHaveURL(/to=/);
  await expect(page.getByLabel("to", { exact: true })).toHaveValue("");
});

test("at 1280×720 every facet group and every reason is reachable and readable", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await open(page, "/dead-letters");
  const aside = page.getByRole("complementary", { name: "Filter by facet" });
  await expect(aside).toBeVisible();
  const column = aside.locator("xpath=..");
  const height = await column.evaluate((el) => el.clientHeight);
  test.info().annotations.push({ type: "facet column height at 1280×720 (px)", description: String(height) });
  expect(height, "the facet column's height").toBeGreaterThan(300);
  await page.screenshot({ path: `${SHOTS}/list-1280x720.png` });
  for (const title of ["Kind", "Status", "Class", "Source", "Failure reason (grouped)"]) {
    const summary = aside.locator("summary").filter({ hasText: title });
    // Scrolled as a wheel would; Playwright's own scrolling waits for frames the busy map may not give it.
    await summary.evaluate((el) => el.scrollIntoView({ block: "nearest" }));
    await expect(summary).toBeInViewport();
  }
  const reasons = aside.getByRole("list", { name: "Failure reason (grouped)" }).getByRole("button");
  const n = await reasons.count();
  expect(n).toBeGreaterThan(5);
  const last = reasons.nth(n - 1);
  await last.evaluate((el) => el.scrollIntoView({ block: "nearest" }));
  await expect(last).toBeInViewport();
  const box = (await last.boundingBox())!;
  expect(box.height, "a reason is at least one line of text").toBeGreaterThanOrEqual(14);
  expect(box.width, "a reason has the column's width").toBeGreaterThan(200);
  await page.screenshot({ path: `${SHOTS}/list-1280x720-reasons-scrolled.png` });
  // Folding a group hides its values and gives its room to the others.
  const spatial = aside.getByRole("checkbox", { name: "spatial" });
  await aside.locator("summary").filter({ hasText: "Kind" }).click();
  await expect(spatial).toBeHidden();
  await aside.locator("summary").filter({ hasText: "Kind" }).click();
  await expect(spatial).toBeVisible();
});

test("the map editor closes an unclosed ring; the change is one added position; the server agrees", async ({ page }) => {
  const [id] = await pendingIds(
    page,
    "kind=spatial&reason=" + encodeURIComponent("IllegalArgumentException: Points of LinearRing do not form a closed linestring"),
    1,
  );
  const before = await record(page, id!);
  const ring = (before.payload.geometry as { coordinates: number[][][] }).coordinates[0]!;
  expect(ring).toHaveLength(4);
  await open(page, `/dead-letters/${id}`);
  await page.keyboard.press("e");
  await expect(page.getByText(/ring 0 is not closed/)).toBeVisible(SLOW);
  await page.getByRole("button", { name: "Close ring 0" }).click();
  await expect(page.getByRole("status").filter({ hasText: "✓ Valid geometry" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Geometry editor" })).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  await expect(page.getByRole("button", { name: "Close ring 0" })).toHaveCount(0);
  await expect(page.getByText("Your changes (1)")).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/record-close-ring.png`, fullPage: true });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText(`Saved #${id}`)).toBeVisible();
  const saved = await record(page, id!);
  expect((saved.payload.geometry as { coordinates: number[][][] }).coordinates[0]).toEqual([...ring, ring[0]]);
  expect(saved.failureClass).not.toBe("poison");
});

test("selected rows are still selected after opening a record (Enter) and coming back (Escape)", async ({ page }) => {
  const rows = page.getByRole("row");
  await expect(rows.nth(3)).toBeVisible();
  const boxes = page.locator("tbody").getByRole("checkbox");
  const ids: string[] = [];
  for (const i of [0, 2]) {
    const box = boxes.nth(i);
    ids.push(/#(\d+)$/.exec((await box.getAttribute("aria-label")) ?? "")![1]!);
    await box.check();
  }
  await expect(page.getByText("2 selected records")).toBeVisible();
  await page.keyboard.press("j");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: /Dead letter #\d+/ })).toBeVisible();
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached();
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/dead-letters(\?|$)/);
  for (const id of ids) await expect(page.getByRole("checkbox", { name: `Select #${id}` })).toBeChecked();
  await expect(page.getByText("2 selected records")).toBeVisible();
  // Changing the filter still clears it.
  await page.getByRole("checkbox", { name: "spatial" }).click();
  await expect(page.getByText("2 selected records")).toHaveCount(0);
});

test("undo on the toast after approve reverses it through a versioned action", async ({ page }) => {
  test.setTimeout(120_000);
  const [first] = await pendingIds(
    page,
    "kind=spatial&reason=" + encodeURIComponent("HTTP … Service Unavailable from tiles-ingest (attempt …)"),
    1,
  );
  const v = (await record(page, first!)).version;
  await open(page, `/dead-letters/${first}`);
  await page.keyboard.press("a");
  const toast = page.locator("[data-sonner-toast]").filter({ hasText: `Approved #${first}` });
  // At once: the toast offers the undo for 10 s.
  await toast.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText(`Undid approve of #${first}`)).toBeVisible();
  const undone = await record(page, first!);
  expect(undone.status).toBe("pending");
  // approve made v + 1, its undo (a reopen, audited like any decision) v + 2
  expect(undone.version).toBe(v + 2);
});

test("undo after someone else acted on the record is refused with the conflict", async ({ page }) => {
  test.setTimeout(120_000);
  const [second] = await pendingIds(
    page,
    "kind=spatial&reason=" + encodeURIComponent("HTTP … Service Unavailable from tiles-ingest (attempt …)"),
    1,
  );
  const v2 = (await record(page, second!)).version;
  await open(page, `/dead-letters/${second}`);
  await page.keyboard.press("a");
  const toast2 = page.locator("[data-sonner-toast]").filter({ hasText: `Approved #${second}` });
  await expect(toast2).toBeVisible();
  // The analyst's pointer rests on the toast (sonner holds it while hovered) while the other acts: a busy machine
  // can take longer than the toast's 10 s for the other's request.
  await toast2.dispatchEvent("mouseover");
  const other = await page.request.post(`/api/dead-letters/${second}/actions`, {
    data: { action: "reopen", version: v2 + 1, reason: "someone else" },
  });
  expect(other.ok(), "the approval made version v2 + 1, which the other reopens").toBe(true);
  await toast2.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText(`Undo refused: #${second} changed under you`)).toBeVisible();
  const after = await record(page, second!);
  expect(after.version).toBe(v2 + 2);
  expect(after.status).toBe("pending");
});
