import { expect as baseExpect, test, type Page } from "@playwright/test";
import { DEMO, type DemoRole } from "./fixtures";

// Notes on a record seen live by two people at once, mentions, the timeline and the list's note filter; saved
// views saved from the list, applied, made the default, and shown with their counts on the overview.

const tag = () => Math.random().toString(36).slice(2, 8);

// Two browsers and a dozen page loads each: more than the default minute (and ten seconds a step) on a shared,
// busy machine.
test.describe.configure({ timeout: 240_000 });
const expect = baseExpect.configure({ timeout: 30_000 });

/** Signs in through the API (the sign-in form is covered by roles.spec.ts): the session cookie lands in the page's context. */
async function signIn(page: Page, role: DemoRole): Promise<void> {
  const res = await page.request.post("/api/auth/sign-in/email", { data: DEMO[role] });
  expect(res.ok()).toBe(true);
}

test("notes: two analysts see each other's notes, mentions and the timeline @themes", async ({ browser }) => {
  const a = await (await browser.newContext()).newPage();
  const b = await (await browser.newContext()).newPage();
  await signIn(a, "analyst");
  await signIn(b, "supervisor");
  const list = await a.request.get("/api/dead-letters?limit=1&status=pending");
  const id = ((await list.json()) as { items: { id: string }[] }).items[0]!.id;
  await a.goto(`/dead-letters/${id}`);
  await b.goto(`/dead-letters/${id}`);
  const marker = `refund-${tag()}`;

  const notesA = a.getByRole("region", { name: "Notes" });
  await notesA.getByLabel(/Add a note/).fill(`${marker} checked <b>not bold</b>, @supervisor please approve`);
  await notesA.getByRole("button", { name: "Add note" }).click();
  await expect(notesA.getByText(`${marker} checked <b>not bold</b>`)).toBeVisible();

  // The other browser sees it without reloading (polled), the mention of its user highlighted.
  const notesB = b.getByRole("region", { name: "Notes" });
  await expect(notesB.getByText(marker)).toBeVisible();
  await expect(notesB.locator("mark", { hasText: "@supervisor" })).toBeVisible();
  await notesB.getByLabel(/Add a note/).fill(`approved after ${marker}`);
  await notesB.getByRole("button", { name: "Add note" }).click();
  await expect(notesA.getByText(`approved after ${marker}`)).toBeVisible();
  await expect(notesA.getByText(DEMO.supervisor.email.split("@")[0]!, { exact: false }).first()).toBeVisible();

  // The mentioned user finds it on the overview.
  await b.goto("/");
  const mentions = b.getByRole("region", { name: "Mentions" });
  await expect(mentions.getByText(marker)).toBeVisible();
  await expect(mentions.getByRole("link", { name: `#${id}` })).toBeVisible();

  // The timeline has both notes.
  await a.goto(`/lookup/timeline/${id}`);
  await expect(a.getByText(new RegExp(`Note by ${DEMO.analyst.email}.*${marker}`))).toBeVisible();

  // The list finds the record by its notes' text, any case.
  await a.goto(`/dead-letters?note=${marker.toUpperCase()}`);
  await expect(a.getByRole("button", { name: `Remove filter note: ${marker.toUpperCase()}` })).toBeVisible();
  await expect(a.getByText(/^1 matching/)).toBeVisible();
  await a.context().close();
  await b.context().close();
});

test("saved views: save from the list, apply, make default, counts on the overview @themes", async ({ page }) => {
  await signIn(page, "analyst");
  const name = `Pending ${tag()}`;
  try {
    await page.goto("/dead-letters?status=pending");
    await expect(page.getByRole("button", { name: "Remove filter status: pending" })).toBeVisible();
    await page.getByRole("button", { name: "Views ▾" }).click();
    const menu = page.getByRole("dialog", { name: "Saved views" });
    await menu.getByLabel("Save the current filter and columns as a view").fill(name);
    await menu.getByLabel("Shared").check();
    await menu.getByRole("button", { name: "Save view" }).click();
    const row = menu.getByRole("button", { name: new RegExp(`^${name}`) });
    await expect(row).toBeVisible();
    await expect(row).toContainText("shared");
    await expect(row).toContainText(/\d/);

    // Applying it from an unfiltered list puts its filter back.
    await page.goto("/dead-letters?all");
    await expect(page.getByRole("button", { name: "Remove filter status: pending" })).toHaveCount(0);
    await page.getByRole("button", { name: "Views ▾" }).click();
    await menu.getByRole("button", { name: new RegExp(`^${name}`) }).click();
    await expect(page).toHaveURL(/status=pending/);
    await expect(page.getByRole("button", { name: "Remove filter status: pending" })).toBeVisible();

    // The default view: /dead-letters without a query opens it.
    await page.getByRole("button", { name: "Views ▾" }).click();
    await menu.getByRole("button", { name: `Make ${name} my default view` }).click();
    await expect(menu.getByRole("button", { name: `${name} is your default view (unset)` })).toBeVisible();
    await page.goto("/dead-letters");
    await expect(page).toHaveURL(/\/dead-letters\?status=pending$/);

    // The overview lists it with its live count.
    await page.goto("/");
    const panel = page.getByRole("region", { name: "Saved views" });
    const item = panel.getByRole("listitem").filter({ hasText: name });
    await expect(item).toContainText("★");
    await expect(item).toContainText(/\d/);
  } finally {
    // Other specs open /dead-letters as this user: leave no default behind.
    await page.request.put("/api/views/default", { data: { viewId: null } });
    const views = (await (await page.request.get("/api/views")).json()) as { items: { id: string; name: string }[] };
    for (const v of views.items.filter((x) => x.name === name)) await page.request.delete(`/api/views/${v.id}`);
  }
});

/** A saved view's "update with the list as it is now" button, in the open Views menu. */
const updateButton = (page: Page, view: string) =>
  page.getByRole("dialog", { name: "Saved views" }).getByRole("button", { name: `Update ${view} with the current filter and columns` });

/** The list's column headers as shown, the selection checkbox's first. */
const headers = (page: Page) => page.getByRole("table", { name: "Dead letters" }).getByRole("columnheader").allTextContents();

test("saved views: a view keeps its columns, restored after a reload; the browser remembers its own @themes", async ({ page }) => {
  await signIn(page, "analyst");
  const name = `Narrow ${tag()}`;
  try {
    await page.goto("/dead-letters?status=pending");
    await expect(page.locator("section[data-hydrated=true]")).toBeVisible();
    const full = ["Select", "Kind", "Source", "Key / hash", "Failure reason", "Class", "Status", "Observed (UTC)", "Replays"];
    await page.getByRole("button", { name: "Hide map" }).click(); // room for every column
    await expect.poll(() => headers(page)).toEqual(full);

    // Choose three columns and put Status first, with the keyboard.
    await page.getByRole("button", { name: "Columns ▾" }).click();
    const chooser = page.getByRole("dialog", { name: "Columns" });
    for (const hide of ["Source", "Key / hash", "Class", "Observed (UTC)", "Replays"]) {
      await chooser.getByRole("checkbox", { name: hide }).focus();
      await page.keyboard.press("Space");
    }
    await chooser.getByRole("button", { name: "Move Status earlier" }).focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await expect(chooser.getByRole("button", { name: "Move Status earlier" })).toBeDisabled();
    await page.keyboard.press("Escape");
    await expect(chooser).toBeHidden();
    const narrow = ["Select", "Status", "Kind", "Failure reason"];
    await expect.poll(() => headers(page)).toEqual(narrow);

    // Saved with the view; then this browser goes back to the default columns.
    await page.getByRole("button", { name: "Views ▾" }).click();
    const menu = page.getByRole("dialog", { name: "Saved views" });
    await menu.getByLabel("Save the current filter and columns as a view").fill(name);
    await menu.getByRole("button", { name: "Save view" }).click();
    await expect(menu.getByRole("button", { name: new RegExp(`^${name}`) })).toBeVisible();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Columns ▾" }).click();
    await chooser.getByRole("button", { name: "Default columns" }).click();
    await page.keyboard.press("Escape");
    await page.goto("/dead-letters?all");
    await page.getByRole("button", { name: "Hide map" }).click();
    await expect.poll(() => headers(page)).toEqual(full);

    // Applying the view applies its columns, and a reload keeps them (they are in the URL).
    await page.getByRole("button", { name: "Views ▾" }).click();
    await menu.getByRole("button", { name: new RegExp(`^${name}`) }).click();
    await expect(page).toHaveURL(/status=pending.*cols=status(%2C|,)kind(%2C|,)reason/);
    await expect.poll(() => headers(page)).toEqual(narrow);
    await page.reload();
    await expect.poll(() => headers(page)).toEqual(narrow);
    // A record opened from this list comes back to it with these columns (Escape).
    await expect(page.locator("section[data-hydrated=true]")).toBeVisible();
    await page.keyboard.press("j");
    await page.keyboard.press("o");
    await expect(page.locator("article[data-hydrated=true]")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/\/dead-letters\?status=pending.*cols=status(%2C|,)kind(%2C|,)reason/);
    await expect.poll(() => headers(page)).toEqual(narrow);

    // The view follows the list when asked: one column more, then "update" stores the filter and these columns.
    await page.getByRole("button", { name: "Views ▾" }).click();
    await expect(menu.getByRole("button", { name: new RegExp(`^${name}`) })).toBeVisible();
    await expect(updateButton(page, name)).toHaveCount(0); // nothing to update while the list is the view
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Columns ▾" }).click();
    // (click, not check: the box follows the URL, which the router applies a moment after the click)
    await chooser.getByRole("checkbox", { name: "Source" }).click();
    await expect(chooser.getByRole("checkbox", { name: "Source" })).toBeChecked();
    await page.keyboard.press("Escape");
    await expect.poll(async () => (await headers(page)).length).toBe(narrow.length + 1);
    const wider = await headers(page);
    await page.getByRole("button", { name: "Views ▾" }).click();
    await expect(updateButton(page, name)).toBeVisible();
    await page.screenshot({ path: "tests/artifacts/screenshots/views-menu-update.png" });
    await updateButton(page, name).click();
    await expect(page.locator("[data-sonner-toast]").filter({ hasText: "View changed" })).toBeVisible();
    await expect(updateButton(page, name)).toHaveCount(0);
    await page.keyboard.press("Escape");
    await page.goto("/dead-letters?all");
    await page.getByRole("button", { name: "Views ▾" }).click();
    await menu.getByRole("button", { name: new RegExp(`^${name}`) }).click();
    await page.getByRole("button", { name: "Hide map" }).click();
    await expect.poll(() => headers(page)).toEqual(wider);

    // Without a view, this browser's own choice is remembered across pages.
    await page.goto("/dead-letters?all");
    await page.getByRole("button", { name: "Hide map" }).click();
    await page.getByRole("button", { name: "Columns ▾" }).click();
    await chooser.getByRole("checkbox", { name: "Replays" }).uncheck();
    await page.keyboard.press("Escape");
    await page.reload();
    await page.getByRole("button", { name: "Hide map" }).click();
    await expect.poll(() => headers(page)).toEqual(full.slice(0, -1));
  } finally {
    const views = (await (await page.request.get("/api/views")).json()) as { items: { id: string; name: string }[] };
    for (const v of views.items.filter((x) => x.name === name)) await page.request.delete(`/api/views/${v.id}`);
  }
});
