import { expect, test } from "@playwright/test";
import { DEMO, signIn, type DemoRole } from "./fixtures";

// Each demo role signs in through the form and sees only what it may do. The server enforces the same
// rules on every route (tests/integration/route-access.test.ts); this checks what a person actually meets.

const CAN_READ_LIST: Record<DemoRole, boolean> = {
  analyst: true,
  supervisor: true,
  supervisor2: true,
  auditor: true,
  admin: true,
  producer: false,
};

for (const role of Object.keys(CAN_READ_LIST) as DemoRole[]) {
  test(`${role} sees exactly what the role allows`, async ({ page }) => {
    await signIn(page, role, "/settings");
    await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "API tokens", exact: true })).toBeVisible();
    // only admins manage users
    await expect(page.getByRole("heading", { name: "Users" })).toHaveCount(role === "admin" ? 1 : 0);
    // and every user's API tokens
    await expect(page.getByRole("heading", { name: "All API tokens" })).toHaveCount(role === "admin" ? 1 : 0);
    // the header links only to pages the role may open
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of ["Dead letters", "Lookup", "Quarantine", "Replays", "Alerts"]) {
      await expect(nav.getByRole("link", { name, exact: true })).toHaveCount(CAN_READ_LIST[role] ? 1 : 0);
    }
    // The audit trail: auditors and admins read it (their own sign-in is in it); everyone else meets a 403.
    const readsAudit = role === "auditor" || role === "admin";
    await expect(nav.getByRole("link", { name: "Audit log", exact: true })).toHaveCount(readsAudit ? 1 : 0);
    await page.goto(`/audit?action=auth.sign_in&actor=${encodeURIComponent(DEMO[role].email)}`);
    if (readsAudit) {
      await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
      await expect(page.getByRole("cell", { name: "auth.sign_in", exact: true }).first()).toBeVisible();
    } else {
      await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
    }

    // The start page: the health overview for readers; a producer is sent to its own view, not to a 403.
    await page.goto("/");
    if (CAN_READ_LIST[role]) await expect(page.getByRole("heading", { name: "DLQ health" })).toBeVisible();
    else await expect(page).toHaveURL(/\/producer$/);
    // a producer's own records and the import page: producers; the import page: admins too
    await expect(nav.getByRole("link", { name: "My records", exact: true })).toHaveCount(role === "producer" ? 1 : 0);
    await expect(nav.getByRole("link", { name: "Import", exact: true })).toHaveCount(role === "producer" || role === "admin" ? 1 : 0);

    await page.goto("/dead-letters");
    if (CAN_READ_LIST[role]) {
      await expect(page.getByRole("heading", { name: "Dead letters" })).toBeVisible();
    } else {
      await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
      await expect(page.getByText("dead_letters:read")).toBeVisible();
    }

    // the API agrees with the page: a producer's session cannot read the list either
    const res = await page.request.get("/api/dead-letters?limit=1");
    expect(res.status()).toBe(CAN_READ_LIST[role] ? 200 : 403);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);
  });
}
