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
  const note = `On it: the gateway team is looking at ${reason}, @supervisor please check`;
  await a.getByLabel("Add a note").fill(note);
  await a.getByRole("button", { name: "Add note" }).click();
  await expect(a.getByRole("list", { name: "Notes" })).toContainText("On it: the gateway team is looking");
  // The @mention is highlighted, as on a record's note.
  await expect(a.getByRole("list", { name: "Notes" }).locator("mark")).toHaveText("@supervisor");
  // One record: in the singular.
  await expect(a.getByTestId("group-count")).toHaveText("1 record");

  // B sees all of it within seconds, without reloading.
  await expect(b.getByTestId("group-status")).toContainText("acknowledged", { timeout: 8_000 });
  await expect(b.getByRole("list", { name: "Notes" })).toContainText("On it: the gateway team is looking", { timeout: 8_000 });
  await expect(b.getByLabel("Owner")).toHaveValue(/.+/);

  // B resolves it, saying why; A sees the resolution, and who made it.
  await b.getByLabel("Resolve: why").fill("fixed upstream in release 4.2");
  await b.getByRole("button", { name: "Resolve" }).click();
  await expect(a.getByTestId("group-status")).toContainText("resolved", { timeout: 8_000 });
  await expect(a.getByText("fixed upstream in release 4.2")).toBeVisible();
  await expect(a.getByTestId("group-resolution")).toContainText(`by ${DEMO.supervisor.email}`);

  // The failure comes back: the group reopens itself, marked as a regression, on both pages.
  await ingestAsProducer(playwright.request, baseURL, envelope(`grp-${word()}`));
  for (const page of [a, b]) {
    await expect(page.getByTestId("group-status")).toContainText("open", { timeout: 8_000 });
    await expect(page.getByTestId("group-status")).toContainText("regression");
  }
  await expect(a.getByRole("status").filter({ hasText: "Regression" })).toContainText("fixed upstream in release 4.2");

  // The group's records are on its page, in the list, which follows the header's count without a reload.
  const records = a.getByRole("region", { name: "Records in this group" });
  await expect(a.getByTestId("group-count")).toHaveText("2 records");
  await expect(records.getByText(/^2 matching · 2 loaded/)).toBeVisible({ timeout: 8_000 });

  // The supervisor finds the group's note under "Mentions of you", linking to the group.
  await b.goto("/");
  const mentions = b.getByRole("region", { name: "Mentions" });
  // The note names the group's reason, unique to this run (the dark project's run adds its own).
  const mention = mentions.getByRole("listitem").filter({ hasText: note });
  await expect(mention).toBeVisible();
  await expect(mention.locator("mark")).toHaveText("@supervisor");
  await mention.getByRole("link", { name: /^group e2e-groups/ }).click();
  await expect(b.getByRole("heading", { name: reason })).toBeVisible();

  await a.context().close();
  await b.context().close();
});

/** A tap of `reason` from the e2e-groups source, as a producer sends it. */
const tap = (reason: string) => ({
  kind: "afc",
  source: "e2e-groups",
  raw_payload: { event_id: `grp-${word()}`, device_id: "gate-9", fare_amount_cents: 250, tap_timestamp: new Date().toISOString() },
  failure_reason: reason,
});

test("groups: a group's page lists its records with the list's tools, and replays the group @themes", async ({
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const reason = `turnstile offline ${word()}`;
  const other = `turnstile jammed ${word()}`;
  for (let i = 0; i < 3; i++) await ingestAsProducer(playwright.request, baseURL, tap(reason));
  // Same source, another reason: another group, not on this one's page.
  await ingestAsProducer(playwright.request, baseURL, tap(other));

  const page = await openAs(browser, "supervisor", "/groups");
  await page.getByRole("link", { name: reason }).click();
  await expect(page).toHaveURL(/\/groups\/[A-Za-z0-9_-]{16}$/);
  const path = new URL(page.url()).pathname;
  const records = page.getByRole("region", { name: "Records in this group" });
  await expect(records.getByText(/^3 matching/)).toBeVisible();
  const table = records.getByRole("table", { name: "Dead letters" });
  await expect(table.getByRole("row")).toHaveCount(4); // the header and the group's three
  await expect(table.getByText(reason)).toHaveCount(3);
  await expect(page.getByText(other)).toHaveCount(0);
  // The group's own source and reason are not filters one can remove here.
  await expect(records.getByRole("button", { name: /^Remove filter (source|reason)/ })).toHaveCount(0);

  // The list's keyboard: j highlights the first row, x selects it; the bulk bar approves it.
  await expect(records).toHaveAttribute("data-hydrated", "true");
  await page.keyboard.press("j");
  await page.keyboard.press("x");
  const bulk = records.getByRole("toolbar", { name: "Bulk actions" });
  await expect(bulk).toContainText("1 selected record");
  await bulk.getByRole("button", { name: "Approve…" }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: /^Approve 1/ })
    .click();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Approved 1 of 1" })).toBeVisible();

  // A further filter narrows within the group: its source and reason stay out of the URL and still apply.
  // (click, not check: the box follows the URL, which the router applies a moment after the click)
  const approved = records.getByRole("complementary", { name: "Filter by facet" }).getByRole("checkbox", { name: /^approved/ });
  await approved.click();
  await expect(approved).toBeChecked();
  await expect(page).toHaveURL(new RegExp(`${path}\\?status=approved$`));
  await expect(records.getByRole("button", { name: "Remove filter status: approved" })).toBeVisible();
  await expect(records.getByText(/^1 matching/)).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(2);
  await page.reload();
  await expect(records.getByText(/^1 matching/)).toBeVisible();

  // A record opened from the group's list goes back to the group's page, its filter kept: by Escape, by the link.
  await expect(records).toHaveAttribute("data-hydrated", "true");
  await page.keyboard.press("j");
  await page.keyboard.press("o");
  await expect(page).toHaveURL(/\/dead-letters\/\d+\?.*back=/);
  await expect(page.getByRole("heading", { name: /^Dead letter #\d+/ })).toBeVisible();
  await expect(page.locator("article[data-hydrated=true]")).toBeVisible();
  await expect(page.getByRole("link", { name: "← Failure group" })).toBeVisible();
  await page.screenshot({ path: "tests/artifacts/screenshots/record-from-group.png" });
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(new RegExp(`${path}\\?status=approved$`));
  await expect(records.getByText(/^1 matching/)).toBeVisible();
  await expect(records).toHaveAttribute("data-hydrated", "true");
  await page.keyboard.press("j");
  await page.keyboard.press("o");
  await page.getByRole("link", { name: "← Failure group" }).click();
  await expect(page).toHaveURL(new RegExp(`${path}\\?status=approved$`));

  // "Replay this group…": the replay form, filled with the group's approved record.
  await records.getByRole("link", { name: "Replay this group…" }).click();
  await expect(page).toHaveURL(/\/replays\/new\?.*source=e2e-groups/);
  expect(new URL(page.url()).searchParams.get("reason")).toBe(reason);
  expect(new URL(page.url()).searchParams.get("status")).toBe("approved");
  await expect(page.getByRole("button", { name: "Create draft batch of 1" })).toBeVisible();
  await page.context().close();
});

test("groups: a change made on an out-of-date page is refused and shown, not written over another's @themes", async ({
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const reason = `validator rejected tap ${word()}`;
  await ingestAsProducer(playwright.request, baseURL, tap(reason));
  const a = await openAs(browser, "analyst", "/groups");
  await a.getByRole("link", { name: reason }).click();
  await expect(a).toHaveURL(/\/groups\/[A-Za-z0-9_-]{16}$/);
  const id = new URL(a.url()).pathname.split("/").pop()!;
  await expect(a.getByTestId("group-status")).toContainText("open");

  // The page refreshes every 3 s; to be out of date for certain, its reads of the group fail for a while (as
  // on a flaky network). Its change still goes through to the server.
  let offline = true;
  await a.route(`**/api/groups/${id}`, (route) => (offline && route.request().method() === "GET" ? route.abort() : route.fallback()));

  // Meanwhile a supervisor ignores the group.
  const b = await browser.newContext({ baseURL });
  const login = await b.request.post("/api/auth/sign-in/email", { data: DEMO.supervisor });
  expect(login.ok()).toBe(true);
  const ignored = await b.request.patch(`/api/groups/${id}`, { data: { status: "ignored" }, headers: { origin: baseURL ?? "" } });
  expect(ignored.status()).toBe(200);

  // The analyst, still seeing "open", acknowledges: refused, said so, and the supervisor's change is shown.
  await a.getByRole("button", { name: "Acknowledge" }).click();
  await expect(a.getByRole("alert").filter({ hasText: "Someone else changed this group" })).toBeVisible();
  offline = false;
  await expect(a.getByTestId("group-status")).toContainText("ignored", { timeout: 15_000 });
  const now = (await (await b.request.get(`/api/groups/${id}`)).json()) as { status: string };
  expect(now.status).toBe("ignored");

  // Seen, the change can be made on purpose: it goes through and the notice goes away.
  await a.getByRole("button", { name: "Acknowledge" }).click();
  await expect(a.getByTestId("group-status")).toContainText("acknowledged");
  await expect(a.getByRole("alert").filter({ hasText: "Someone else changed this group" })).toHaveCount(0);
  await a.context().close();
  await b.close();
});

test("groups: a group whose records are all dealt with says so and offers Resolve; quarantine shows the reason given @themes", async ({
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const reason = `validator crashed ${word()}`;
  const id = await ingestAsProducer(playwright.request, baseURL, tap(reason));
  const page = await openAs(browser, "supervisor", "/quarantine");
  const headers = { origin: baseURL ?? "" };
  const record = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as { version: number };
  const why = `vendor sends unparseable taps ${word()}`;
  const q = await page.request.post(`/api/dead-letters/${id}/actions`, {
    data: { action: "quarantine", version: record.version, reason: why },
    headers,
  });
  expect(q.ok()).toBe(true);

  // Quarantine: the pattern, the reason the person gave, and a row that opens the records.
  await page.reload();
  const row = page.getByRole("row").filter({ hasText: reason });
  await expect(row.getByRole("list", { name: "Reasons given when quarantining" })).toContainText(`Quarantined because: “${why}”`);
  await row.getByRole("cell").nth(2).click();
  await expect(page).toHaveURL(/\/dead-letters\?status=quarantined&kind=afc&reason=/);

  // Purged, nothing in the group is left to do: the page says so, and one click resolves it.
  const purge = await page.request.post("/api/quarantine/purge", { data: { ids: [id], reason: "e2e: not needed" }, headers });
  expect(purge.ok()).toBe(true);
  await page.goto("/groups");
  await expect(page.getByRole("row").filter({ hasText: reason })).toContainText("nothing left");
  await page.getByRole("link", { name: reason }).click();
  await expect(page.getByTestId("group-count")).toHaveText("1 record");
  const done = page.getByRole("status").filter({ hasText: "nothing is left to do" });
  await expect(done).toContainText("Its record is resolved");
  await done.getByRole("button", { name: "Resolve the group" }).click();
  await expect(page.getByTestId("group-status")).toContainText("resolved");
  await expect(page.getByTestId("group-resolution")).toContainText(`by ${DEMO.supervisor.email}`);
  await page.context().close();
});
