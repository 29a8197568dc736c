import { mkdirSync, writeFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./fixtures";

// Row click → both detail maps drawn, measured inside the page: a capture-phase click listener stamps the click,
// a MutationObserver stamps each phase (record heading in the DOM, each map created, each map drawn), all on
// performance.now(), so Playwright's polling interval does not enter the figure. The analyst's real path is
// measured: from the list (already showing its own map) to a record and back by the in-app link, several
// records in a row. Figures go to tests/artifacts/triage-click-to-maps.json; the budget is the 500 ms at p50.
// The budget is only enforced with E2E_TIMING_BUDGET=1: on a shared 2-core machine with software WebGL, load
// from other processes moves single figures by seconds, and a red build should mean a regression, not a neighbour.

const RUNS = Number(process.env.E2E_TIMING_RUNS ?? 8);
const BUDGET_MS = 500;
// Pending records only: another spec may have replayed the newest bowties, whose page shows the geometry sent.
const LIST = `/dead-letters?kind=spatial&status=pending&reason=${encodeURIComponent("TopologyException: Input geom … is invalid: Self-intersection at or near point … …")}`;

interface Stamp {
  what: string;
  t: number;
}

declare global {
  interface Window {
    __stamps?: Stamp[];
  }
}

/** Starts recording phases in the page (survives client-side navigation, which keeps the document). */
async function record(page: Page): Promise<void> {
  await page.evaluate(() => {
    const stamps: Stamp[] = [];
    window.__stamps = stamps;
    document.addEventListener("click", () => stamps.push({ what: "click", t: performance.now() }), { capture: true, once: true });
    const seen = new Set<string>();
    const mark = (what: string) => {
      if (seen.has(what)) return;
      seen.add(what);
      stamps.push({ what, t: performance.now() });
    };
    const check = () => {
      if (document.getElementById("record-heading")) mark("heading");
      for (const el of document.querySelectorAll<HTMLElement>('[aria-label="Geometry as received"], [aria-label="Geometry repaired"]')) {
        const side = el.getAttribute("aria-label")!.endsWith("received") ? "received" : "repaired";
        mark(`${side}:mounted`);
        if (el.dataset.mapState === "ready") mark(`${side}:ready`);
        if (el.dataset.drawn === "true") mark(`${side}:drawn`);
      }
    };
    new MutationObserver(check).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-map-state", "data-drawn", "id"],
    });
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

test("row click → both maps drawn, several records in a row", async ({ page }) => {
  test.setTimeout(60_000 + RUNS * 30_000);
  await signIn(page, "analyst");
  await page.goto(LIST);
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached();
  const rows = page.getByRole("row").filter({ hasText: "TopologyException" });
  await expect(rows.nth(RUNS - 1)).toBeVisible();
  await page.waitForSelector('[aria-label="Map of matching spatial records"][data-drawn="true"]');

  const runs: Record<string, number>[] = [];
  for (let i = 0; i < RUNS; i++) {
    // An analyst reads the list before clicking; idle-time preloading may use that moment, as it would in use.
    await page.waitForTimeout(1_000);
    await page.evaluate(() => performance.clearMarks());
    await record(page);
    await rows.nth(i).click();
    for (const side of ["received", "repaired"]) {
      await expect(page.getByRole("region", { name: `Geometry ${side === "received" ? "as received" : "repaired"}` })).toHaveAttribute(
        "data-drawn",
        "true",
        { timeout: 20_000 },
      );
    }
    const stamps = await page.evaluate(() => [
      ...(window.__stamps ?? []),
      ...performance
        .getEntriesByType("mark")
        .filter((m) => m.name.startsWith("map:Geometry"))
        .map((m) => ({ what: m.name, t: m.startTime })),
    ]);
    const click = stamps.find((s) => s.what === "click")?.t;
    expect(click, "the click was stamped").toBeDefined();
    const phases = Object.fromEntries(stamps.filter((s) => s.what !== "click").map((s) => [s.what, Math.round(s.t - click!)]));
    const both = Math.max(phases["received:drawn"] ?? Infinity, phases["repaired:drawn"] ?? Infinity);
    expect(Number.isFinite(both), `both maps stamped drawn: ${JSON.stringify(phases)}`).toBe(true);
    runs.push({ ...phases, bothDrawn: both });
    console.log(`[timing] run ${i + 1}: ${JSON.stringify({ ...phases, bothDrawn: both })}`);
    await page.getByRole("link", { name: "← Dead letters" }).click();
    await expect(rows.nth(RUNS - 1)).toBeVisible();
  }

  const sorted = runs.map((r) => r.bothDrawn!).sort((a, b) => a - b);
  const summary = { runs: sorted.length, p50: pct(sorted, 50), max: sorted.at(-1)!, min: sorted[0]!, all: runs };
  mkdirSync("tests/artifacts", { recursive: true });
  writeFileSync("tests/artifacts/triage-click-to-maps.json", JSON.stringify(summary, null, 2));
  console.log(
    `[timing] row click → both maps drawn over ${sorted.length} records: p50 ${summary.p50} ms, max ${summary.max} ms, min ${summary.min} ms`,
  );
  test.info().annotations.push({ type: "row click → both maps drawn (ms)", description: `p50 ${summary.p50}, max ${summary.max}` });
  if (process.env.E2E_TIMING_BUDGET === "1") expect(summary.p50, "p50 row click → both maps drawn (ms)").toBeLessThanOrEqual(BUDGET_MS);
});
