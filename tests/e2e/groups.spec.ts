import { expect, test, type Browser, type Page } from "@playwright/test";
import { DEMO, ingestAsProducer, type DemoRole } from "./fixtures";

// Failure groups shared by two people in two browsers (the analyst and a supervisor, who triages too): what
// one does — acknowledge, assign, note, resolve — the other sees within seconds without reloading; a new record
// in a resolved group reopens it as a regression.

/** Letters only: the reason must form a group of its own on every run (digits would be grouped away). */
const word = () =>
  Array.from(Date.now().toString(36) + Math.random().toString(36).slice(2, 8))
    .map((c) => String.fromCharCode(97 + (parseInt(c, 36) % 26)))
    .join("");

/** A browser of its own, signed in on `path`; the first render of a page may take a while on a busy machine. */
async function openAs(browser: Browser, role: DemoRole, path: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel("E-mail").fill(DEMO[role].email);
  await page.getByLabel("Password").fill(DEMO[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === path, { timeout: 30_000 });
  return page;
}

test("groups: two analysts share a group, and a regression reopens it @themes", async ({ browser, playwright, baseURL }) => {
  // Two browsers signing in and waiting on each other's polls: past the 60 s default on a busy machine.
  test.setTimeout(180_000);
  const reason = `gateway refused tap ${word()}`;
  const envelope = (eventId: string) => ({
    kind: "afc",
    source: "e2e-groups",
    raw_payload: { event_id: eventId, device_id: "gate-9", fare_amount_cents: 250, tap_timestamp: new Date().toISOString() },
    failure_reason: reason,
  });
  await ingestAsProducer(playwright.request, baseURL, envelope(`grp-${word()}`));

  const a = await openAs(browser, "analyst", "/groups");
  await a.getByRole("link", { name: reason }).click();
  await expect(a).toHaveURL(/\/groups\/[A-Za-z0-9_-]{16}$/);
  await expect(a.getByRole("heading", { name: reason })).toBeVisible();
  const b = await openAs(browser, "supervisor", new URL(a.url()).pathname);
  await expect(b.getByTestId("group-status")).toContainText("open");

  // A takes it: acknowledges, assigns themself, says so.
  await a.getByRole("button", { name: "Acknowledge" }).click();
  await expect(a.getByTestId("group-status")).toContainText("acknowledged");
  await a.getByLabel("Owner").selectOption({ label: "analyst@demo.redrive.local" });
  await a.getByLabel("Add a note").fill("On it: the gateway team is looking");
  await a.getByRole("button", { name: "Add note" }).click();
  await expect(a.getByRole("list", { name: "Notes" })).toContainText("On it: the gateway team is looking");

  // B sees all of it within seconds, without reloading.
  await expect(b.getByTestId("group-status")).toContainText("acknowledged", { timeout: 8_000 });
  await expect(b.getByRole("list", { name: "Notes" })).toContainText("On it: the gateway team is looking", { timeout: 8_000 });
  await expect(b.getByLabel("Owner")).toHaveValue(/.+/);

  // B resolves it, saying why; A sees the resolution.
  await b.getByLabel("Resolve: why").fill("fixed upstream in release 4.2");
  await b.getByRole("button", { name: "Resolve" }).click();
  await expect(a.getByTestId("group-status")).toContainText("resolved", { timeout: 8_000 });
  await expect(a.getByText("fixed upstream in release 4.2")).toBeVisible();

  // The failure comes back: the group reopens itself, marked as a regression, on both pages.
  await ingestAsProducer(playwright.request, baseURL, envelope(`grp-${word()}`));
  for (const page of [a, b]) {
    await expect(page.getByTestId("group-status")).toContainText("open", { timeout: 8_000 });
    await expect(page.getByTestId("group-status")).toContainText("regression");
  }
  await expect(a.getByRole("status").filter({ hasText: "Regression" })).toContainText("fixed upstream in release 4.2");

  // The group's records are one click away in the list, filtered to the group.
  await a.getByRole("link", { name: /Open the 2 records in the list/ }).click();
  await expect(a).toHaveURL(/\/dead-letters\?.*source=e2e-groups/);
  await expect(a.getByText(reason).first()).toBeVisible();

  await a.context().close();
  await b.context().close();
});
