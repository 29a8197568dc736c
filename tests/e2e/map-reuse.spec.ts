import { mkdirSync } from "node:fs";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { mapPixel, signIn } from "./fixtures";
import { countForeground, countPixels, decodePng, type Image } from "./png";

// Map reuse (components/map/map-pool.ts): a record's maps are parked when its page goes and reattached by the next
// page that shows a map. Open bowtie A from the list, go back, open bowtie B: B's maps must be reused instances
// (A's canvases, the pool's marks), fitted to B (data-camera), with B's ring drawn at B's vertices and nothing of
// A's left; then the overlay toggle and the geometry editor still work on that page.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });
const LIST = `/dead-letters?kind=spatial&reason=${encodeURIComponent("TopologyException: Input geom … is invalid: Self-intersection at or near point … …")}`;
const RING = "#b91c1c";
const BACKGROUNDS = ["#dbe7ef", "#f6f4ee", "#c9c3b5", "#ffffff", "#e2e8f0", "#f8fafc"];

declare global {
  interface Window {
    __seenCanvases?: WeakSet<HTMLCanvasElement>;
  }
}

type Ring = [number, number][];

async function ringOf(page: Page, id: string): Promise<Ring> {
  const res = await page.request.get(`/api/dead-letters/${id}`);
  expect(res.ok()).toBe(true);
  const detail = (await res.json()) as { payload: { geometry: { type: string; coordinates: number[][][] } } };
  expect(detail.payload.geometry.type).toBe("Polygon");
  return detail.payload.geometry.coordinates[0]!.map((p) => [p[0]!, p[1]!]);
}

/** The pixel of a lon/lat inside a map region's own screenshot. */
async function pixelIn(region: Locator, lon: number, lat: number): Promise<{ x: number; y: number }> {
  const p = await mapPixel(region, lon, lat);
  const box = (await region.boundingBox())!;
  return { x: Math.round(p.x - box.x), y: Math.round(p.y - box.y) };
}

/** Ring-coloured pixels within `r` px of (x, y). */
function ringPixelsNear(img: Image, x: number, y: number, r = 6): number {
  let n = 0;
  for (let py = Math.max(0, y - r); py <= Math.min(img.height - 1, y + r); py++) {
    for (let px = Math.max(0, x - r); px <= Math.min(img.width - 1, x + r); px++) {
      const i = (py * img.width + px) * 4;
      if (Math.abs(img.data[i]! - 0xb9) <= 50 && Math.abs(img.data[i + 1]! - 0x1c) <= 50 && Math.abs(img.data[i + 2]! - 0x1c) <= 50) n++;
    }
  }
  return n;
}

async function bothDrawn(page: Page): Promise<[Locator, Locator]> {
  const received = page.getByRole("region", { name: "Geometry as received" });
  const repaired = page.getByRole("region", { name: "Geometry repaired" });
  await expect(received).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  await expect(repaired).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  return [received, repaired];
}

const idFromUrl = (page: Page) => /\/dead-letters\/([^/?]+)/.exec(page.url())?.[1] ?? "";

test("a reused map shows the next record's geometry, not the last one's", async ({ page }) => {
  await signIn(page, "analyst");
  await page.goto(LIST);
  await expect(page.locator('[data-hydrated="true"]')).toBeAttached();
  const rows = page.getByRole("row").filter({ hasText: "TopologyException" });
  await expect(rows.nth(3)).toBeVisible();
  await page.waitForSelector('[aria-label="Map of matching spatial records"][data-drawn="true"]');

  await rows.nth(0).click();
  await bothDrawn(page);
  const a = idFromUrl(page);
  const ringA = await ringOf(page, a);
  // Remember A's canvases: B's page must get (some of) them back rather than new maps.
  await page.evaluate(() => {
    window.__seenCanvases = new WeakSet();
    for (const c of document.querySelectorAll<HTMLCanvasElement>('[aria-label^="Geometry"] canvas')) window.__seenCanvases.add(c);
  });

  await page.getByRole("link", { name: "← Dead letters" }).click();
  await expect(rows.nth(3)).toBeVisible();
  await page.waitForSelector('[aria-label="Map of matching spatial records"][data-drawn="true"]');
  await page.evaluate(() => performance.clearMarks());
  await rows.nth(3).click();
  await expect(page).not.toHaveURL(new RegExp(`/dead-letters/${a}(\\?|$)`));
  const [received, repaired] = await bothDrawn(page);
  const b = idFromUrl(page);
  const ringB = await ringOf(page, b);

  const reuse = await page.evaluate(() => ({
    marks: performance.getEntriesByType("mark").map((m) => m.name),
    fromA: [...document.querySelectorAll<HTMLCanvasElement>('[aria-label^="Geometry"] canvas')].filter((c) => window.__seenCanvases?.has(c))
      .length,
  }));
  expect(reuse.marks, "both of B's maps came from the pool").toEqual(
    expect.arrayContaining(["map:Geometry as received:reused", "map:Geometry repaired:reused"]),
  );
  expect(reuse.fromA, "B's page shows at least one of A's map instances").toBeGreaterThan(0);

  // Fitted to B: the camera's centre is inside B's box, wherever A was.
  const lons = ringB.map((p) => p[0]);
  const lats = ringB.map((p) => p[1]);
  for (const map of [received, repaired]) {
    const [lng, lat] = ((await map.getAttribute("data-camera")) ?? "").split(",").map(Number) as [number, number];
    expect(lng).toBeGreaterThanOrEqual(Math.min(...lons));
    expect(lng).toBeLessThanOrEqual(Math.max(...lons));
    expect(lat).toBeGreaterThanOrEqual(Math.min(...lats));
    expect(lat).toBeLessThanOrEqual(Math.max(...lats));
  }

  await page.waitForTimeout(300); // let the last frame reach the compositor
  const left = decodePng(await received.screenshot());
  const right = decodePng(await repaired.screenshot());
  // B's ring at every one of B's vertices on the received map; the repaired map filled.
  for (const [lon, lat] of ringB) {
    const p = await pixelIn(received, lon, lat);
    expect(ringPixelsNear(left, p.x, p.y), `B's ring at its vertex ${lon},${lat} (pixel ${p.x},${p.y})`).toBeGreaterThan(3);
  }
  expect(countForeground(right, BACKGROUNDS), "drawn pixels on the repaired map").toBeGreaterThan(3000);
  // Nothing of A: where A's vertices fall inside B's view (if anywhere), there is no ring unless B's is there too.
  for (const [lon, lat] of ringA) {
    const p = await pixelIn(received, lon, lat);
    if (p.x < 0 || p.y < 0 || p.x >= left.width || p.y >= left.height) continue;
    const nearB = await Promise.all(ringB.map(async ([x, y]) => pixelIn(received, x, y)));
    if (nearB.some((q) => Math.hypot(q.x - p.x, q.y - p.y) < 20)) continue;
    expect(ringPixelsNear(left, p.x, p.y, 3), `no ring of A at ${lon},${lat}`).toBe(0);
  }
  // The whole of the ring colour on the map is B's: a stale copy of A's ring would add to it.
  expect(countPixels(left, [RING], 50), "ring pixels on B's received map").toBeGreaterThan(150);
  await page.screenshot({ path: `${SHOTS}/map-reuse-detail-b.png`, fullPage: true });

  // Overlay: the two maps go back to the pool and one comes out for both geometries.
  await page.getByRole("radio", { name: "Overlay" }).click();
  const overlay = page.getByRole("region", { name: "Geometry overlay" });
  await expect(overlay).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  await page.waitForTimeout(300);
  expect(countForeground(decodePng(await overlay.screenshot()), BACKGROUNDS), "drawn pixels on the overlay").toBeGreaterThan(3000);
  await page.getByRole("radio", { name: "Side by side" }).click();
  await bothDrawn(page);

  // The geometry editor (terra-draw, never pooled) still draws on this page.
  await page.keyboard.press("e");
  const editor = page.getByRole("region", { name: "Geometry editor" });
  await expect(editor).toHaveAttribute("data-drawn", "true", { timeout: 20_000 });
  await expect(editor).toHaveAttribute("data-camera", /,/);
});
