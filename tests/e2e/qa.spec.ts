import { expect, test, type Page } from "@playwright/test";
import { ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";

// What an exploratory pass through the UI tripped over: a 404 that leads somewhere, free text that wraps instead
// of widening the page, a list that fits a 1280-pixel window, bulk results in plain words, and a replay started
// from the list.

/** Opens a page and waits until React has hydrated it. */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached();
}

async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

test("an unknown record id answers 404 with a page that leads back to the list", async ({ page }) => {
  await signIn(page, "analyst");
  for (const id of ["99999999", "not-a-number"]) {
    const res = await page.goto(`/dead-letters/${id}`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "404 · No such dead letter" })).toBeVisible();
  }
  await page.getByRole("link", { name: "Back to the dead letters" }).click();
  await expect(page).toHaveURL(/\/dead-letters$/);
  const other = await page.goto("/no-such-page");
  expect(other?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "404 · Page not found" })).toBeVisible();
});

test("a failure reason that is one long word wraps instead of widening the page", async ({ page, playwright, baseURL }) => {
  const word = "averyveryverylongwordwithoutanyspaces".repeat(20);
  const id = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source: "e2e-long-text",
    idempotency_key: `long-${uniqueSuffix()}`,
    observed_at: new Date().toISOString(),
    feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35, 48.85] }, properties: {} },
    dead_letter_reason: `upstream said ${word}`,
  });
  await signIn(page, "analyst");
  await open(page, `/dead-letters/${id}`);
  await expect(page.getByText(`upstream said ${word}`).first()).toBeVisible();
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  await page.getByRole("tab", { name: /Failure history/ }).click();
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
});

test("on a 390-px phone the header wraps: Sign out and the theme switch are on the screen, and the page does not pan", async ({ page }) => {
  // The theme menu's visually hidden label (sr-only: position absolute) once widened the page to 857 px; then the
  // nav scrolled sideways within itself with Sign out and Theme off the screen. Now its links wrap.
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "supervisor");
  await page.goto("/replays");
  await expect(page.getByRole("heading", { name: "Replay batches" })).toBeVisible();
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  const nav = page.getByRole("navigation", { name: "Main" });
  expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  await expect(nav.getByRole("button", { name: "Sign out" })).toBeInViewport({ ratio: 1 });
  await expect(nav.getByRole("link", { name: "Alerts" })).toBeInViewport({ ratio: 1 });
  await expect(nav.getByRole("combobox", { name: "Theme" })).toBeInViewport({ ratio: 1 });
});

test("on a 390-px phone no page pans sideways: wide tables scroll in their own box, the list's toolbar wraps, its facets fold behind a button", async ({
  page,
}) => {
  // Soft: one page that pans does not hide another.
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "supervisor");
  for (const [path, heading] of [
    ["/groups", "Failure groups"],
    ["/alerts", "Alerts"],
    ["/", "DLQ health"],
    ["/quarantine", "Quarantine"],
    ["/dead-letters", "Dead letters"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    expect.soft(await pageOverflow(page), path).toBeLessThanOrEqual(0);
  }
  await expect(page.getByRole("button", { name: "Keyboard shortcuts" })).toBeInViewport({ ratio: 1 });
  const table = await page.getByTestId("results-scroller").boundingBox();
  expect(table!.width).toBeGreaterThan(300);
  // The facets are folded: the table's first row is on the first screen; "Filters" unfolds them above it.
  await expect(page.getByRole("table", { name: "Dead letters" }).getByRole("row").nth(1)).toBeInViewport();
  const facets = page.locator("#list-facets");
  await expect(facets).toBeHidden();
  await page.getByRole("button", { name: "Filters" }).click();
  await expect(facets).toBeVisible();
  await page.getByRole("button", { name: "Hide filters" }).click();
  // The wrapped toolbar's menus open on the screen, not off its left edge.
  await page.getByRole("button", { name: /^Export/ }).click();
  await expect(page.getByRole("menu")).toBeInViewport({ ratio: 1 });
});

test("at 1280 and 1440 px every list column fits beside the map (under the facets); from 1600 px the map is on the right, every column still shown", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "analyst");
  await open(page, "/dead-letters");
  const scroller = page.getByTestId("results-scroller");
  await expect(page.getByRole("columnheader", { name: "Replays" })).toBeVisible();
  await expect(page.getByLabel("Filter list to map view")).toBeVisible();
  expect(await scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  const map = page.getByLabel("Map of matching spatial records");
  const table = page.getByRole("table", { name: "Dead letters" });
  const [m, t] = [await map.boundingBox(), await table.boundingBox()];
  expect(m!.x + m!.width).toBeLessThanOrEqual(t!.x); // left of the table
  await page.getByRole("button", { name: "Hide map" }).click();
  await expect(page.getByLabel("Filter list to map view")).toBeHidden();
  await page.getByRole("button", { name: "Show map" }).click();
  await expect(page.getByLabel("Filter list to map view")).toBeVisible();

  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, "/dead-letters");
  await expect(page.getByRole("columnheader", { name: "Replays" })).toBeVisible(); // gave way beside a right-hand map
  const [m1, t1] = [await map.boundingBox(), await table.boundingBox()];
  expect(m1!.x + m1!.width).toBeLessThanOrEqual(t1!.x);

  await page.setViewportSize({ width: 1600, height: 900 });
  await open(page, "/dead-letters");
  await expect(page.getByLabel("Filter list to map view")).toBeVisible();
  const [m2, t2] = [await map.boundingBox(), await page.getByRole("table", { name: "Dead letters" }).boundingBox()];
  expect(m2!.x).toBeGreaterThanOrEqual(t2!.x + t2!.width); // right of the table
  await expect(page.getByRole("columnheader", { name: "Replays" })).toBeVisible();
  expect(await scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

  // Taps have no geometry: listing only AFC records, there is no map to show (it said "0 spatial in view").
  await open(page, "/dead-letters?kind=afc");
  await expect(page.getByRole("columnheader", { name: "Replays" })).toBeVisible();
  await expect(page.getByLabel("Filter list to map view")).toBeHidden();
  await expect(page.getByRole("button", { name: "Hide map" })).toHaveCount(0);
});

test("a bulk reopen of selected rows reports 'Reopened'", async ({ page }) => {
  await signIn(page, "analyst");
  const list = (await (await page.request.get("/api/dead-letters?status=pending&class=transient&limit=50")).json()) as {
    items: { id: string; idempotencyKey: string }[];
  };
  // A key holding a Luhn-valid digit run comes back masked to an analyst (as it must): it could not be searched for.
  const target = list.items.find((i) => !i.idempotencyKey.includes("•"))!;
  const current = (await (await page.request.get(`/api/dead-letters/${target.id}`)).json()) as { version: number };
  const quarantined = await page.request.post(`/api/dead-letters/${target.id}/actions`, {
    data: { action: "quarantine", version: current.version, reason: "e2e: to reopen" },
  });
  expect(quarantined.ok()).toBe(true);
  await open(page, `/dead-letters?q=${encodeURIComponent(target.idempotencyKey)}`);
  await page.getByRole("checkbox", { name: `Select #${target.id}` }).check();
  await page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("button", { name: "Reopen…" }).click();
  await page.getByRole("dialog", { name: "Reopen 1 record" }).getByRole("button", { name: "Reopen 1" }).click();
  await expect(page.getByText("Reopened 1 of 1")).toBeVisible();
});

test("a supervisor starts a replay batch from a list selection", async ({ page }) => {
  await signIn(page, "supervisor");
  await open(page, "/dead-letters?status=pending");
  const first = page.getByRole("checkbox", { name: /^Select #\d+$/ }).first();
  const id = /#(\d+)$/.exec((await first.getAttribute("aria-label")) ?? "")![1]!;
  await first.check();
  await page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("link", { name: "Replay…" }).click();
  await expect(page).toHaveURL(new RegExp(`/replays/new\\?ids=${id}$`));
  await expect(page.getByRole("heading", { name: "New replay batch" })).toBeVisible();
  await expect(page.getByText("Left out: 1 not approved.")).toBeVisible();
  await open(page, "/dead-letters");
  await expect(page.getByRole("link", { name: "Replay approved…" })).toHaveAttribute("href", "/replays/new?status=approved");
});

test("an analyst is not offered a replay from the list", async ({ page }) => {
  await signIn(page, "analyst");
  await open(page, "/dead-letters");
  await expect(page.getByRole("link", { name: "Replay approved…" })).toHaveCount(0);
  await page
    .getByRole("checkbox", { name: /^Select #\d+$/ })
    .first()
    .check();
  await expect(page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("link", { name: "Replay…" })).toHaveCount(0);
});

test("list keys are cut in the middle: keys that differ only at the end stay apart, and the column takes free width", async ({
  page,
  playwright,
  baseURL,
}) => {
  const source = `e2e-keys-${uniqueSuffix()}`;
  const prefix = `${source}:orders-eu-west:w3-bowtie`;
  for (const n of [1, 2, 3]) {
    await ingestAsProducer(playwright.request, baseURL, {
      kind: "spatial",
      source,
      idempotency_key: `${prefix}-${n}`,
      observed_at: new Date().toISOString(),
      feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35, 48.85] }, properties: {} },
      dead_letter_reason: "HTTP 503 from the parcels service",
    });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "analyst");
  await open(page, `/dead-letters?source=${source}`);
  // Every row is loaded: the count is exact, without "≈".
  await expect(page.getByText(/^3 matching · 3 loaded/)).toBeVisible();
  const tails = page.getByTestId("key-text").locator("span:last-child");
  await expect(tails).toHaveCount(3);
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const tail = tails.nth(i);
    await expect(tail).toBeInViewport({ ratio: 1 });
    seen.add(((await tail.textContent()) ?? "").trim());
  }
  expect([...seen].sort()).toEqual([":w3-bowtie-1", ":w3-bowtie-2", ":w3-bowtie-3"]);
  // Wider than its old fixed 7.75 rem (124 px) at 1440 px.
  const cell = await page.getByTestId("key-text").first().boundingBox();
  expect(cell!.width).toBeGreaterThan(124);
  await page.screenshot({ path: "tests/artifacts/screenshots/ui-polish-list-keys-1440.png" });
});

test("on a 390-px phone the record page fits the screen in one column, and the groups table shows source and counts @themes", async ({
  page,
  colorScheme,
}) => {
  const scheme = colorScheme === "dark" ? "dark" : "light";
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "analyst");
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&limit=1");
  const id = ((await list.json()) as { items: { id: string }[] }).items[0]!.id;
  await open(page, `/dead-letters/${id}`);
  await expect(page.locator('[data-map-state="ready"]').first()).toBeVisible({ timeout: 15_000 });
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  // A term and its text one above the other: side by side the term column left most of the screen empty.
  const term = page.locator("dt").first();
  const text = page.locator("dd").first();
  const [t, d] = [await term.boundingBox(), await text.boundingBox()];
  expect(d!.y).toBeGreaterThanOrEqual(t!.y + t!.height - 1);
  expect(d!.width).toBeGreaterThan(300);
  await page.screenshot({ path: `tests/artifacts/screenshots/ui-polish-record-390-${scheme}.png`, fullPage: true });

  await page.goto("/groups");
  await expect(page.getByRole("heading", { level: 1, name: "Failure groups" })).toBeVisible();
  const summary = page.getByTestId("group-summary").first();
  await expect(summary).toBeInViewport({ ratio: 1 });
  await expect(summary).toContainText(/ · \d[\d,]* records? · \d[\d,]* unresolved/);
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `tests/artifacts/screenshots/ui-polish-groups-390-${scheme}.png` });
  for (const [path, name] of [
    ["/dead-letters", "list"],
    ["/quarantine", "quarantine"],
    ["/", "overview"],
  ] as const) {
    await page.goto(path);
    await page.waitForLoadState("load");
    await page.screenshot({ path: `tests/artifacts/screenshots/ui-polish-${name}-390-${scheme}.png` });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const [path, name] of [
    [`/dead-letters/${id}`, "record"],
    ["/dead-letters", "list"],
    ["/groups", "groups"],
    ["/quarantine", "quarantine"],
    ["/", "overview"],
  ] as const) {
    await page.goto(path);
    await page.waitForLoadState("load");
    await page.waitForTimeout(500);
    await page.screenshot({ path: `tests/artifacts/screenshots/ui-polish-${name}-1440-${scheme}.png` });
  }
});
