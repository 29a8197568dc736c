import { expect, test } from "@playwright/test";
import { signIn } from "./fixtures";

test("health reports the database and migrations as ok", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ status: "ok", database: { ok: true }, migrations: { pending: [], failed: [] } });
});

test("liveness and readiness answer apart from health, signed out", async ({ request }) => {
  const live = await request.get("/api/health/live");
  expect(live.status()).toBe(200);
  expect(await live.json()).toEqual({ status: "live" });
  const ready = await request.get("/api/health/ready");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({ ready: true, reasons: [] });
});

test("signed out, the list sends you to sign in", async ({ page }) => {
  await page.goto("/dead-letters");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("the dead-letter list shows real rows from PostgreSQL, paged by cursor", async ({ page, request }) => {
  await signIn(page, "analyst");
  await expect(page.getByRole("heading", { name: "Dead letters" })).toBeVisible();
  const rows = page.getByRole("row");
  // header + at least one data row, from the seeded database
  await expect(rows.nth(1)).toBeVisible();
  expect(await rows.count()).toBeGreaterThan(10);
  // the sources the demo generator uses show up in the table
  await expect(
    page
      .getByRole("cell", { name: /^(parcels\.v2|field-survey|fleet-geofences|flood-zones|gates\.metro|validators\.bus|tram\.readers)$/ })
      .first(),
  ).toBeVisible();
  await page.screenshot({ path: "tests/artifacts/screenshots/foundation-list.png", fullPage: false });
  void request;
});
