import { expect, test } from "@playwright/test";

// The theme follows the system until the reader picks one in the header; the pick survives a reload and is in
// force before the page paints (the <head> script sets the class before any of React's scripts run).

test.use({ colorScheme: "dark" });

test("theme: a dark system gives the dark theme; Light is remembered across a reload, System follows the system again", async ({
  page,
}) => {
  // The class as the document first finished parsing, before hydration: no flash of the other theme.
  await page.addInitScript(() => {
    document.addEventListener("DOMContentLoaded", () => {
      (window as unknown as { __firstClass: string }).__firstClass = document.documentElement.className;
    });
  });
  const html = page.locator("html");
  const firstClass = () => page.evaluate(() => (window as unknown as { __firstClass?: string }).__firstClass ?? "");

  await page.goto("/sign-in");
  await expect(html).toHaveClass(/\bdark\b/);
  expect(await firstClass()).toMatch(/\bdark\b/);
  const toggle = page.getByRole("combobox", { name: "Theme" });
  await expect(toggle).toHaveValue("system");
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe("rgb(248, 250, 252)");

  await toggle.selectOption("light");
  await expect(html).not.toHaveClass(/\bdark\b/);
  await page.reload();
  expect(await firstClass()).not.toMatch(/\bdark\b/);
  await expect(html).not.toHaveClass(/\bdark\b/);
  await expect(page.getByRole("combobox", { name: "Theme" })).toHaveValue("light");
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("light");

  await page.getByRole("combobox", { name: "Theme" }).selectOption("system");
  await expect(html).toHaveClass(/\bdark\b/);
  await page.emulateMedia({ colorScheme: "light" });
  await expect(html).not.toHaveClass(/\bdark\b/);
  await page.reload();
  expect(await firstClass()).not.toMatch(/\bdark\b/);
});
