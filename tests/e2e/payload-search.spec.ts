import { mkdirSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";

// Issue #29 point 4: the list's search finds records by the values in their working payload — free words,
// key:value and path = value — and never by card data, which its readers see masked.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });
const SLOW = { timeout: 30_000 };

// The first page a cold production server renders on a busy machine can take longer than a sign-in waits.
test.beforeAll(async ({ browser }, info) => {
  const page = await browser.newPage({ baseURL: info.project.use.baseURL });
  await page.goto("/sign-in?next=%2Fdead-letters", { timeout: 60_000 });
  await page.request.get("/api/health", { timeout: 60_000 });
  await page.close();
});

async function search(page: Page, q: string): Promise<void> {
  const box = page.getByRole("searchbox", { name: /^Search key/ });
  await box.fill(q);
  await box.press("Enter");
  await expect.poll(() => new URL(page.url()).searchParams.get("q"), SLOW).toBe(q);
}

test("payload search: words, key:value and path = value find a record; card data finds nothing @themes", async ({
  page,
  playwright,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const run = uniqueSuffix(); // the chromium and dark runs of this test may start in the same millisecond
  const sensor = `SN-E2E-${run}`;
  const spatial = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source: "e2e-payload-search",
    idempotency_key: `payload-search-${run}`,
    observed_at: new Date().toISOString(),
    feature: {
      type: "Feature",
      geometry: { type: "Point", coordinates: [2.35, 48.85] },
      properties: { sensor, note: `kerb moved near quokka${run} crossing` },
    },
    dead_letter_reason: "HTTP 503 from tiles-ingest (attempt 1)",
  });
  const tap = await ingestAsProducer(playwright.request, baseURL, {
    kind: "afc",
    source: "e2e-payload-search",
    raw_payload: {
      event_id: `search-${run}`,
      device_id: "gate-search",
      fare_amount_cents: 250,
      tap_timestamp: "2026-11-20T08:15:00Z",
      card_pan: "4111111111111111",
      operator_note: `barrier jammed wombat${run}`,
    },
    failure_reason: "card_pan: Unrecognized key",
    retry_count: 0,
  });

  await signIn(page, "analyst").catch(() => page.waitForURL(/\/dead-letters$/, { timeout: 60_000 }));
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached(SLOW);
  const row = (id: string) => page.getByRole("checkbox", { name: `Select #${id}` });

  await search(page, `quokka${run} kerb`);
  await expect(row(spatial)).toBeVisible(SLOW);
  await expect(page.getByRole("checkbox", { name: /^Select #\d+$/ })).toHaveCount(1);

  await search(page, `properties.sensor = "${sensor}"`);
  await expect(row(spatial)).toBeVisible(SLOW);
  await page.screenshot({ path: `${SHOTS}/list-payload-search-path.png` });

  await search(page, `sensor:${sensor}`);
  await expect(row(spatial)).toBeVisible(SLOW);

  await search(page, `wombat${run}`);
  await expect(row(tap)).toBeVisible(SLOW);
  await expect(row(spatial)).toHaveCount(0);

  // The analyst sees the card number masked: searching it is refused by the box (and by the API), which keeps
  // the text and says why; the search applied before stays, named by its chip.
  await refusedSearch(page, "4111111111111111", /Not searched: holds a card number/);
  await expect(row(tap)).toBeVisible(SLOW);
  const refused = await page.request.get(`/api/dead-letters?q=${encodeURIComponent('card_pan = "4111111111111111"')}`);
  expect(refused.status()).toBe(422);
  const body = JSON.stringify(await refused.json());
  expect(body).toContain("q");
  expect(body).not.toContain("4111111111111111");

  // Broken syntax and a condition without a value: the box keeps the text and names the problem.
  await refusedSearch(page, `properties.sensor = "${sensor}`, /Not searched: a quoted value/);
  await refusedSearch(page, "properties.sensor =", /Not searched: a condition needs a value/);
  await refusedSearch(page, "card_pan:4111", /Not searched: "card_pan" holds masked card data/);
  await page.screenshot({ path: `${SHOTS}/list-search-refused-${test.info().project.name}.png` });

  // A link holding a search the list cannot read: the box shows it with why, not an emptied box over everything.
  await page.goto(`/dead-letters?q=${encodeURIComponent("card_pan:4111")}`);
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached(SLOW);
  await expect(page.getByRole("searchbox", { name: /^Search key/ })).toHaveValue("card_pan:4111");
  await expect(page.getByRole("alert").filter({ hasText: /Not searched: "card_pan" holds masked card data/ })).toBeVisible(SLOW);
  await expect(page.getByText("The filter in the URL is invalid")).toHaveCount(0);
});

async function refusedSearch(page: Page, q: string, message: RegExp): Promise<void> {
  const box = page.getByRole("searchbox", { name: /^Search key/ });
  const before = new URL(page.url()).searchParams.get("q");
  await box.fill(q);
  await box.press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: message })).toBeVisible(SLOW);
  await expect(box).toHaveValue(q);
  await expect(box).toHaveAttribute("aria-invalid", "true");
  expect(new URL(page.url()).searchParams.get("q")).toBe(before);
}
