import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";
import { decodePng } from "./png";

// Every page passes axe-core's WCAG 2.1 A/AA rules, colour contrast included, in the theme of the project
// running it: "chromium" is light, "dark" (playwright.config.ts) re-runs these @themes tests with the system set
// to dark, which the page follows by default.

async function expectAccessible(page: Page, path: string, scheme: "light" | "dark") {
  if (new URL(page.url()).pathname + new URL(page.url()).search !== path) await page.goto(path);
  if (path !== "/sign-in") await expect(page).not.toHaveURL(/\/sign-in/);
  await expect(page.locator("main")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
  // Data and client components settle (queries, maps' "Loading…" overlays) before the check.
  await page.waitForLoadState("load");
  await page.waitForTimeout(600);
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    // MapLibre's canvas is not text, and its attribution control is MapLibre's own markup and colours.
    .exclude(".maplibregl-ctrl-attrib")
    .analyze();
  const found = result.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1).join(" ")}`).join("\n")}`,
  );
  // A picture of each page in its theme, to look at (the names say which page).
  const name =
    path
      .split("?")[0]!
      .replace(/\/\d+/g, "/id")
      .replace(/^\/groups\/[\w-]{16}$/, "/group")
      .replace(/\W+/g, "-")
      .replace(/^-|-$/g, "") || "overview";
  await page.screenshot({ path: `tests/artifacts/screenshots/theme-${scheme}-${name}.png` });
  expect(found, `${path} in ${scheme}`).toEqual([]);
}

const schemeOf = (colorScheme: string | null | undefined) => (colorScheme === "dark" ? "dark" : "light");

test("a11y: sign-in page @themes", async ({ page, colorScheme }) => {
  await page.goto("/sign-in");
  await expectAccessible(page, "/sign-in", schemeOf(colorScheme));
});

test("a11y: triage and forensics pages @themes", async ({ page, colorScheme }) => {
  test.setTimeout(120_000);
  const scheme = schemeOf(colorScheme);
  // Signed in on the list: signIn's URL check could not tell "/" from the sign-in page itself.
  await signIn(page, "analyst", "/dead-letters");
  for (const path of ["/dead-letters", "/", "/quarantine", "/lookup", "/alerts", "/sources", "/settings"]) {
    await expectAccessible(page, path, scheme);
  }
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&class=transient&limit=40");
  expect(list.ok()).toBe(true);
  const record = ((await list.json()) as { items: { id: string }[] }).items.at(-1);
  expect(record).toBeDefined();
  await expectAccessible(page, `/dead-letters/${record!.id}`, scheme);
  await expect(page.locator('[data-map-state="ready"]').first()).toBeVisible({ timeout: 15_000 });
  await expectAccessible(page, `/lookup/timeline/${record!.id}`, scheme);
});

test("a11y: an admin's settings with the Teams panel @themes", async ({ page, colorScheme, baseURL }) => {
  const scheme = schemeOf(colorScheme);
  await signIn(page, "admin", "/settings");
  // A team without members scopes nobody: the other specs' accounts keep seeing every record.
  const name = `a11y team ${uniqueSuffix()}`;
  const created = await page.request.post("/api/teams", {
    data: { name, sources: [{ source: "a11y-parcels" }, { source: "a11y-sensor*" }, { origin: "a11y-rabbit" }] },
    headers: { origin: baseURL ?? "" },
  });
  expect(created.status()).toBe(201);
  try {
    await page.goto("/settings");
    await expect(page.getByRole("heading", { name: "Teams" })).toBeVisible();
    await expect(page.getByRole("cell", { name, exact: true })).toBeVisible();
    await expectAccessible(page, "/settings", scheme);
  } finally {
    const { id } = (await created.json()) as { id: string };
    await page.request.delete(`/api/teams/${id}`, { headers: { origin: baseURL ?? "" } });
  }
});

test("a11y: replay pages @themes", async ({ page, colorScheme, baseURL }) => {
  test.setTimeout(120_000);
  const scheme = schemeOf(colorScheme);
  await signIn(page, "supervisor", "/replays");
  await expectAccessible(page, "/replays", scheme);
  const list = await page.request.get("/api/dead-letters?kind=spatial&status=pending&class=transient&limit=3");
  const ids = ((await list.json()) as { items: { id: string }[] }).items.map((r) => r.id);
  expect(ids.length).toBe(3);
  const bulk = await page.request.post("/api/dead-letters/bulk", { data: { action: "approve", ids }, headers: { origin: baseURL ?? "" } });
  expect(bulk.ok()).toBe(true);
  await expectAccessible(page, `/replays/new?ids=${ids.join(",")}`, scheme);
  await page.getByRole("button", { name: "Create draft batch of 3" }).click();
  await expect(page).toHaveURL(/\/replays\/\d+$/);
  await expectAccessible(page, new URL(page.url()).pathname, scheme);
});

test("a11y: a failure group's page, with its records in the list @themes", async ({ page, colorScheme }) => {
  test.setTimeout(120_000);
  await signIn(page, "supervisor", "/groups");
  await expectAccessible(page, "/groups", schemeOf(colorScheme));
  const groups = (await (await page.request.get("/api/groups?sort=size")).json()) as { groups: { id: string }[] };
  const biggest = groups.groups[0];
  expect(biggest).toBeDefined();
  await expectAccessible(page, `/groups/${biggest!.id}`, schemeOf(colorScheme));
});

test("a11y: audit log @themes", async ({ page, colorScheme }) => {
  await signIn(page, "auditor", "/audit");
  await expectAccessible(page, "/audit", schemeOf(colorScheme));
});

/**
 * How much a button stands out from what is around it: the mean difference in luminance between its pixels and
 * the background just outside it (from a screenshot, whatever colour format the styles use).
 */
async function prominence(page: Page, button: ReturnType<Page["getByRole"]>): Promise<number> {
  const box = (await button.boundingBox())!;
  const m = 4;
  const img = decodePng(
    await page.screenshot({ clip: { x: box.x - m, y: box.y - m, width: box.width + 2 * m, height: box.height + 2 * m } }),
  );
  const lum = (i: number) => (0.2126 * img.data[i]! + 0.7152 * img.data[i + 1]! + 0.0722 * img.data[i + 2]!) / 255;
  const bg = lum(0); // the top-left corner, outside the button
  let sum = 0;
  let n = 0;
  for (let y = m + 1; y < img.height - m - 1; y++) {
    for (let x = m + 1; x < img.width - m - 1; x++) {
      sum += Math.abs(lum((y * img.width + x) * 4) - bg);
      n++;
    }
  }
  return sum / n;
}

test("a disabled Approve stands out less than an enabled one, in both themes @themes", async ({
  page,
  colorScheme,
  playwright,
  baseURL,
}) => {
  const scheme = schemeOf(colorScheme);
  const key = `e2e-disabled-${uniqueSuffix()}`;
  const square = [
    [
      [2.35, 48.85],
      [2.36, 48.85],
      [2.36, 48.86],
      [2.35, 48.86],
      [2.35, 48.85],
    ],
  ];
  const id = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source: "e2e-disabled",
    idempotency_key: key,
    observed_at: new Date().toISOString(),
    feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: square }, properties: {} },
    dead_letter_reason: "HTTP 503 from the parcels service",
  });
  await signIn(page, "supervisor", `/dead-letters/${id}`);
  const bar = page.getByRole("toolbar", { name: "Decide" });
  const approve = bar.getByRole("button", { name: /^Approve/ });
  await expect(approve).toBeEnabled();
  await page.mouse.move(0, 0); // no hover
  const enabled = await prominence(page, approve);
  const record = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as { version: number };
  const res = await page.request.post(`/api/dead-letters/${id}/actions`, {
    data: { action: "approve", version: record.version },
    headers: { origin: baseURL ?? "" },
  });
  expect(res.ok()).toBe(true);
  await page.reload();
  await expect(approve).toBeDisabled();
  await page.mouse.move(0, 0);
  const disabled = await prominence(page, approve);
  await bar.screenshot({ path: `tests/artifacts/screenshots/ui-polish-decide-disabled-${scheme}.png` });
  expect(disabled, `${scheme}: disabled ${disabled.toFixed(3)} against enabled ${enabled.toFixed(3)}`).toBeLessThan(enabled * 0.6);
});
