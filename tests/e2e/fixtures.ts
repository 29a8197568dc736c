import { expect, type Page } from "@playwright/test";

// Demo accounts seeded by scripts/e2e.ts (lib/auth/users.ts DEMO_ACCOUNTS).
export const DEMO = {
  analyst: { email: "analyst@demo.redrive.local", password: "demo-analyst-pass" },
  supervisor: { email: "supervisor@demo.redrive.local", password: "demo-supervisor-pass" },
  supervisor2: { email: "supervisor2@demo.redrive.local", password: "demo-supervisor2-pass" },
  auditor: { email: "auditor@demo.redrive.local", password: "demo-auditor-pass" },
  admin: { email: "admin@demo.redrive.local", password: "demo-admin-pass" },
  producer: { email: "producer@demo.redrive.local", password: "demo-producer-pass" },
} as const;

export type DemoRole = keyof typeof DEMO;

/** Signs in through the real form, landing on `next` (default: the dead-letter list). */
export async function signIn(page: Page, role: DemoRole, next = "/dead-letters"): Promise<void> {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("E-mail").fill(DEMO[role].email);
  await page.getByLabel("Password").fill(DEMO[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`${next.replace(/[/?]/g, "\\$&")}`));
}
