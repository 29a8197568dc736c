import { expect, test, type Page } from "@playwright/test";
import { DEMO, type DemoRole, uniqueSuffix } from "./fixtures";

// A producer's own view (#29.6) and import in the browser (#29.7): a file uploaded from the dashboard goes through
// the same ingest as `redrive import`, with its per-record results and closing line; the producer then finds what
// it sent (and nobody else's), a command to copy, and the API reference.

const square = [
  [
    [2.35, 48.85],
    [2.36, 48.85],
    [2.36, 48.86],
    [2.35, 48.86],
    [2.35, 48.85],
  ],
];

const envelope = (key: string) => ({
  kind: "spatial",
  source: "e2e-producer",
  idempotency_key: key,
  observed_at: "2026-11-30T10:00:00Z",
  feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: square }, properties: {} },
  dead_letter_reason: "HTTP 503 from the parcels service",
});

/** A record ingest refuses: observed_at is not a time. */
const BAD = { kind: "spatial", observed_at: "yesterday", feature: { type: "Feature", geometry: null, properties: {} } };

/**
 * Signs in through the API (the form is roles.spec's subject) and opens `next`: the page's context keeps the session
 * cookie. Password hashing on a loaded machine can take longer than the form helper's 10 s wait.
 */
async function signIn(page: Page, role: DemoRole, next: string): Promise<void> {
  const res = await page.request.post("/api/auth/sign-in/email", {
    data: { email: DEMO[role].email, password: DEMO[role].password },
    timeout: 60_000,
  });
  expect(res.ok()).toBe(true);
  await page.goto(next);
}

async function importFile(page: Page, name: string, mimeType: string, text: string): Promise<void> {
  await page.getByLabel("File to import").setInputFiles({ name, mimeType, buffer: Buffer.from(text) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
}

test("producer: import NDJSON in the browser, see own records, copy the example, read the API reference @themes", async ({
  page,
  context,
}) => {
  const key = `e2e-producer-${uniqueSuffix()}`;
  const ndjson = `${JSON.stringify(envelope(key))}\n${JSON.stringify(BAD)}\n`;
  await signIn(page, "producer", "/import");
  await expect(page.getByRole("heading", { name: "Import dead letters" })).toBeVisible();

  await importFile(page, "dead-letters.ndjson", "application/x-ndjson", ndjson);
  await expect(page.getByRole("status")).toContainText(/imported 2 records in [\d.]+ s \(\d+\/s\): 1 created, 0 duplicate, 1 rejected/);
  await expect(page.getByRole("progressbar", { name: "Import progress" })).toBeVisible();
  const results = page.getByRole("table", { name: "Per-record results" });
  // The first column is the file's line, as an editor numbers it.
  const good = results.getByRole("row").nth(1).getByRole("cell");
  await expect(good.nth(0)).toHaveText("1");
  await expect(good.nth(1)).toHaveText("created");
  await expect(good.nth(2)).toHaveText(/^\d+$/);
  const bad = results.getByRole("row").nth(2).getByRole("cell");
  await expect(bad.nth(0)).toHaveText("2");
  await expect(bad.nth(1)).toHaveText("rejected");
  await expect(bad.nth(2)).toContainText("observed_at");

  // the same file again: what was stored answers duplicate, as the CLI says
  await importFile(page, "dead-letters.ndjson", "application/x-ndjson", ndjson);
  await expect(page.getByRole("status")).toContainText("0 created, 1 duplicate, 1 rejected");

  await page.getByRole("link", { name: "See your records" }).click();
  await expect(page).toHaveURL(/\/producer$/);
  await expect(page.getByRole("heading", { name: "My records" })).toBeVisible();
  const mine = page.getByRole("table", { name: /Your records/ });
  const row = mine.getByRole("row").filter({ hasText: key });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("pending");
  await expect(row).toContainText("HTTP 503 from the parcels service");
  await expect(page.getByRole("heading", { name: "API tokens", exact: true })).toBeVisible();

  // the ingest endpoints, and an example to copy with a placeholder token
  const example = page.getByRole("region", { name: "Sending dead letters" }).locator("pre");
  await expect(example).toContainText("curl -X POST");
  await expect(example).toContainText("/api/dead-letters");
  await expect(example).toContainText("Authorization: Bearer rdv_YOUR_TOKEN");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: "Copy the curl example" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await example.innerText());

  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: /POST\s*\/api\/dead-letters\s*Ingest dead letters/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: /GET\s*\/api\/producer\/records\s*The records/ })).toBeVisible();
});

test("import: a GeoJSON FeatureCollection of envelopes as an admin; a reader may not import @themes", async ({ page }) => {
  const key = `e2e-collection-${uniqueSuffix()}`;
  const collection = { type: "FeatureCollection", features: [envelope(`${key}-a`), envelope(`${key}-b`), BAD] };
  await signIn(page, "admin", "/import");
  await importFile(page, "envelopes.geojson", "application/geo+json", JSON.stringify(collection, null, 2));
  await expect(page.getByRole("status")).toContainText("3 records");
  await expect(page.getByRole("status")).toContainText("2 created, 0 duplicate, 1 rejected");
  await expect(page.getByRole("table", { name: "Per-record results" }).getByRole("row")).toHaveCount(4);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, "analyst", "/dead-letters");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Import", exact: true })).toHaveCount(0);
  await page.goto("/import");
  await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
  expect((await page.request.post("/api/dead-letters", { data: envelope(`${key}-c`) })).status()).toBe(403);
});

test("import: a rejected row names the file's line (blank lines counted) and its key", async ({ page }) => {
  const key = `e2e-lines-${uniqueSuffix()}`;
  // Line 10 is the rejected one; blank lines 2 and 5 are skipped by the ingest, which numbers it record 8 (from 0).
  const lines = [
    JSON.stringify(envelope(`${key}-1`)),
    "",
    JSON.stringify(envelope(`${key}-3`)),
    JSON.stringify(envelope(`${key}-4`)),
    "   ",
    JSON.stringify(envelope(`${key}-6`)),
    JSON.stringify(envelope(`${key}-7`)),
    JSON.stringify(envelope(`${key}-8`)),
    JSON.stringify(envelope(`${key}-9`)),
    JSON.stringify({ ...envelope(`${key}-bad`), observed_at: "yesterday" }),
    JSON.stringify(envelope(`${key}-11`)),
  ];
  await signIn(page, "producer", "/import");
  await importFile(page, "lines.ndjson", "application/x-ndjson", `${lines.join("\n")}\n`);
  await expect(page.getByRole("status")).toContainText("8 created, 0 duplicate, 1 rejected");
  await page.getByLabel("Only rejected records").check();
  const row = page.getByRole("table", { name: "Per-record results" }).getByRole("row").nth(1).getByRole("cell");
  await expect(row.nth(0)).toHaveText("10");
  await expect(row.nth(1)).toHaveText("rejected");
  await expect(row.nth(2)).toContainText(`key ${key}-bad`);
  await expect(row.nth(2)).toContainText("observed_at");
});
