import { expect as baseExpect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";
import { DEMO } from "./fixtures";

// Each test crosses two servers and several full page loads: more room than a single-page spec.
const expect = baseExpect.configure({ timeout: 30_000 });

// Single sign-on end to end: an admin points Redrive at a real OpenID provider (oidc-provider, started here on a
// free loopback port, with its development login pages) in the settings, then people sign in through it in
// Chromium and get the role their groups map to. The settings are put back afterwards, so the other specs keep
// password sign-in and no SSO button.

const port = Number(process.env.E2E_PORT ?? 3100);
const ORIGIN = `http://127.0.0.1:${port}`;
let idp: TestOidcProvider;

test.beforeAll(async () => {
  idp = await startOidcProvider({ redirectOrigins: [ORIGIN] });
});

async function asAdmin(request: APIRequestContext): Promise<void> {
  const res = await request.post("/api/auth/sign-in/email", { data: DEMO.admin, headers: { origin: ORIGIN } });
  expect(res.ok()).toBe(true);
}

test.afterAll(async ({ playwright }) => {
  const request = await playwright.request.newContext({ baseURL: ORIGIN });
  try {
    await asAdmin(request);
    const reset = {
      issuer: null,
      clientId: null,
      clientSecret: null,
      name: null,
      roleMap: null,
      passwordSignIn: true,
      breakGlassEmail: null,
    };
    expect((await request.put("/api/settings/sso", { data: reset, headers: { origin: ORIGIN } })).ok()).toBe(true);
  } finally {
    await request.dispose();
  }
  await idp?.close();
});

/** The provider's development login form: any password. */
async function loginAtProvider(page: Page, login: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

test.describe.configure({ mode: "serial", timeout: 180_000 });

test("sso: an admin configures the provider in the settings @themes", async ({ page }) => {
  await page.goto("/sign-in?next=%2Fsettings");
  await page.getByLabel("E-mail").fill(DEMO.admin.email);
  await page.getByLabel("Password").fill(DEMO.admin.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${ORIGIN}/settings`);
  const panel = page.getByRole("region", { name: "Single sign-on (OpenID Connect)" });
  await expect(panel).toContainText(`${ORIGIN}/api/auth/callback/oidc`);
  await panel.getByLabel("Issuer URL").fill(idp.issuer);
  await panel.getByLabel("Client ID").fill(idp.clientId);
  await panel.getByLabel("Client secret").fill(idp.clientSecret);
  await panel.getByLabel("Provider name").fill("Corp IdP");
  await panel.getByLabel("Group → role map").fill("redrive-admins=admin, redrive-supervisors=supervisor, ops=supervisor");
  await panel.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(panel.getByTestId("sso-status")).toContainText("sign-in with Corp IdP is on");
  // The secret is sealed and never shown again.
  await expect(panel.getByLabel("Client secret")).toHaveValue("");
  await expect(panel.getByLabel("Client secret")).toHaveAttribute("placeholder", /set/);
});

test("sso: people sign in with the provider and get their groups' role; an unmapped person is refused @themes", async ({ browser }) => {
  // Alice (redrive-supervisors) signs in and is a supervisor.
  const alice = await browser.newContext({ baseURL: ORIGIN });
  const page = await alice.newPage();
  await page.goto("/sign-in?next=%2Fsettings");
  await page.getByRole("button", { name: "Sign in with Corp IdP" }).click();
  await loginAtProvider(page, "alice");
  await expect(page).toHaveURL(`${ORIGIN}/settings`);
  const account = page.getByRole("region", { name: "Your account" });
  await expect(account).toContainText("alice@corp.example");
  await expect(account).toContainText("supervisor");

  // Signing out ends the session at the provider too (RP-initiated logout).
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/session/end`));
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await expect(page.getByRole("heading", { name: "Sign-out Success" })).toBeVisible();
  await page.goto(`${ORIGIN}/settings`);
  await expect(page).toHaveURL(/\/sign-in/);
  await alice.close();

  // Carol's groups map to nothing: refused, with a page that says why.
  const carol = await browser.newContext({ baseURL: ORIGIN });
  const carolPage = await carol.newPage();
  await carolPage.goto("/sign-in");
  await carolPage.getByRole("button", { name: "Sign in with Corp IdP" }).click();
  await loginAtProvider(carolPage, "carol");
  await expect(carolPage).toHaveURL(/\/sign-in\?error=no_mapped_group/);
  // (Next's route announcer is an alert too.)
  const refusal = carolPage.getByRole("alert").filter({ hasText: "Redrive access refused" });
  await expect(refusal).toContainText("none of your groups");
  await carol.close();
});
