import { expect, test } from "@playwright/test";
import { signIn } from "./fixtures";

// Every page runs only the scripts it was served with: a per-request nonce and 'strict-dynamic' in script-src,
// never 'unsafe-inline', so markup that slipped past escaping could not run. The pages still work with it (the
// sign-in form, the list and a record's maps hydrate) and the browser reports no violation.

test("pages carry a fresh script nonce, no 'unsafe-inline' for scripts, and run without a CSP violation", async ({ page }) => {
  const violations: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __csp: string[] }).__csp ??= [];
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });

  const policies: string[] = [];
  page.on("response", (r) => {
    if (r.request().resourceType() === "document") policies.push(r.headers()["content-security-policy"] ?? "");
  });

  await signIn(page, "analyst", "/dead-letters");
  await expect(page.getByRole("table").getByRole("row").nth(1)).toBeVisible();
  await page.getByRole("table").getByRole("row").nth(1).click();
  await expect(page).toHaveURL(/\/dead-letters\/\d+/);
  await page.goto("/lookup");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  expect(policies.length).toBeGreaterThanOrEqual(3);
  const nonces = new Set<string>();
  for (const policy of policies) {
    const script = policy.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(script, policy).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
    expect(script).toContain("'strict-dynamic'");
    expect(script).not.toContain("'unsafe-inline'");
    expect(script).not.toContain("'unsafe-eval'");
    nonces.add(/'nonce-([^']+)'/.exec(script)![1]!);
  }
  expect(nonces.size, "a nonce per page load").toBe(policies.length);

  // The page's own scripts carry this load's nonce (the browser hides the attribute; the property keeps it).
  const current = /'nonce-([^']+)'/.exec(policies.at(-1)!)![1];
  const scriptNonces = await page.evaluate(() => [...document.scripts].map((s) => s.nonce));
  expect(scriptNonces.length).toBeGreaterThan(0);
  for (const n of scriptNonces) expect(n).toBe(current);

  expect(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])).toEqual([]);
  expect(violations).toEqual([]);

  // The API answers carry a policy without any inline script either.
  const api = await page.request.get("/api/health");
  expect(api.headers()["content-security-policy"]).toMatch(/script-src 'self'(;|$)/);
});
