import { expect, test, type APIRequest, type Page } from "@playwright/test";
import { ingestAsProducer, mapPixel, signIn, uniqueSuffix } from "./fixtures";
import { countPixels, decodePng } from "./png";

// An investigator's question, end to end: "what happened to this tap?" — a poison tap from the demo data
// (one whose event_id is missing, so only its device and time identify it) found by device and time window on
// /lookup, and its timeline read.

interface Summary {
  id: string;
  kind: string;
  eventId: string | null;
  deviceId: string | null;
  failureClass: string;
  classReason: string | null;
  observedAt: string;
}

test("lookup by device and time finds a poison tap, and its timeline tells its story", async ({ page }) => {
  await signIn(page, "auditor", "/lookup");
  const list = await page.request.get("/api/dead-letters?kind=afc&class=poison&limit=200");
  expect(list.ok()).toBe(true);
  const { items } = (await list.json()) as { items: Summary[] };
  const tap = items.find((d) => d.eventId === null && d.deviceId !== null);
  expect(tap, "the demo data has poison taps without an event_id").toBeDefined();
  const at = new Date(tap!.observedAt).getTime();
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);

  await page.getByLabel("Key, hash, event id, device id or message id").fill(tap!.deviceId!);
  await page.getByLabel("From (UTC)").fill(local(at - 3_600_000));
  await page.getByLabel("To (UTC)").fill(local(at + 3_600_000));
  await page.getByRole("button", { name: "Look up" }).click();
  await expect(page).toHaveURL(/\/lookup\?q=/);

  const link = page.getByRole("link", { name: `Timeline of record ${tap!.id}` });
  await expect(link).toBeVisible();
  const row = page.getByRole("row").filter({ has: link });
  await expect(row).toContainText("device id");
  await expect(row).toContainText("poison");

  await link.click();
  await expect(page).toHaveURL(new RegExp(`/lookup/timeline/${tap!.id}$`));
  await expect(page.getByRole("heading", { name: new RegExp(`Timeline of record #${tap!.id}`) })).toBeVisible();
  const timeline = page.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByRole("listitem").first()).toContainText(/Received from .*: .*\(class poison: missing event_id/);
  await expect(page.getByRole("link", { name: "Download JSON" })).toHaveAttribute(
    "href",
    `/api/dead-letters/${tap!.id}/timeline?download=1`,
  );

  const json = await page.request.get(`/api/dead-letters/${tap!.id}/timeline`);
  const body = (await json.json()) as { events: { action: string }[]; masked: boolean };
  expect(body.masked).toBe(true);
  expect(body.events[0]?.action).toBe("dead_letter.ingested");
});

// ── a place drawn on the lookup map ─────────────────────────────────────────────────────────────────────

/** Where a lon/lat is on the lookup map, in page pixels (once the map has reported its camera). */
async function pixelOf(page: Page, lon: number, lat: number): Promise<{ x: number; y: number }> {
  const region = page.getByRole("region", { name: "Lookup place" });
  await expect(region).toHaveAttribute("data-camera", /,/);
  return mapPixel(region, lon, lat);
}

/**
 * A spatial record of the spec's own, well inside the lookup map as it shows now (so a 50 × 40 px drag around it
 * starts and ends on the map), observed at a minute of 2011 no other record shares: the box and the time window
 * then find it however many records other specs have put near it (a lookup lists the newest 50).
 */
async function spatialTarget(
  page: Page,
  request: APIRequest,
  baseURL: string | undefined,
): Promise<{ id: string; lon: number; lat: number; observedAt: string }> {
  const region = await page.getByRole("region", { name: "Lookup place" }).boundingBox();
  if (!region) throw new Error("the lookup map has no box");
  const margin = 60;
  let at: [number, number] | undefined;
  for (const [lon, lat] of [
    [12.5, 41.9],
    [-43.2, -22.9],
    [78.5, 17.4],
    [0, 0],
    [-100, 40],
  ] as const) {
    const p = await pixelOf(page, lon, lat);
    if (
      p.x > region.x + margin &&
      p.x < region.x + region.width - margin &&
      p.y > region.y + margin &&
      p.y < region.y + region.height - margin
    ) {
      at = [lon, lat];
      break;
    }
  }
  expect(at, "one of the places lies well inside the map's first view").toBeDefined();
  const [lon, lat] = at!;
  const observedAt = new Date(Date.UTC(2011, 0, 1) + Math.floor(Math.random() * 360 * 24 * 60) * 60_000).toISOString();
  const d = 0.01;
  const key = `e2e-drawn-box-${uniqueSuffix()}`;
  const id = await ingestAsProducer(request, baseURL, {
    kind: "spatial",
    source: "e2e-lookup",
    idempotency_key: key,
    observed_at: observedAt,
    feature: {
      type: "Feature",
      id: key,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [lon - d, lat - d],
            [lon + d, lat - d],
            [lon + d, lat + d],
            [lon - d, lat + d],
            [lon - d, lat - d],
          ],
        ],
      },
      properties: {},
    },
    dead_letter_reason: "HTTP 503 from the parcels service",
  });
  return { id, lon, lat, observedAt };
}

test("a box drawn with the mouse finds the records in it; a dropped point finds them by radius; clearing empties", async ({
  page,
  playwright,
  baseURL,
}) => {
  await signIn(page, "analyst", "/lookup");
  await page.getByRole("button", { name: "Draw on map" }).click();
  await expect(page.getByRole("region", { name: "Lookup place" })).toHaveAttribute("data-map-state", "ready", { timeout: 20_000 });
  const target = await spatialTarget(page, playwright.request, baseURL);
  const at = new Date(target.observedAt).getTime();
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  await page.getByLabel("From (UTC)").fill(local(at - 3_600_000));
  await page.getByLabel("To (UTC)").fill(local(at + 3_600_000));

  const drawBox = page.getByRole("button", { name: "Draw a box" });
  await expect(drawBox).toBeEnabled();
  await drawBox.click();
  await expect(drawBox).toHaveAttribute("aria-pressed", "true");
  const p = await pixelOf(page, target.lon, target.lat);
  await page.mouse.move(p.x - 25, p.y - 20);
  await page.mouse.down();
  await page.mouse.move(p.x + 25, p.y + 20, { steps: 12 });
  await page.mouse.up();

  // The box went into the URL with the time window, and the server answered with the record in it.
  await expect(page).toHaveURL(/\/lookup\?.*bbox=/);
  const url = new URL(page.url());
  expect(url.searchParams.get("from")).not.toBeNull();
  expect(url.searchParams.has("near")).toBe(false);
  const [x1, y1, x2, y2] = url.searchParams.get("bbox")!.split(",").map(Number);
  expect(x1!).toBeLessThan(target.lon);
  expect(x2!).toBeGreaterThan(target.lon);
  expect(y1!).toBeLessThan(target.lat);
  expect(y2!).toBeGreaterThan(target.lat);
  expect(x2! - x1!, "a 50 px box at the first zoom is ~20° wide, not the whole view").toBeLessThan(40);
  const link = page.getByRole("link", { name: `Timeline of record ${target.id}` });
  await expect(link).toBeVisible();
  await expect(page.getByRole("row").filter({ has: link })).toContainText("place");
  await expect(page.getByLabel("Box (minLon,minLat,maxLon,maxLat)")).toHaveValue(url.searchParams.get("bbox")!);
  await expect(drawBox).toHaveAttribute("aria-pressed", "false");

  // The shape stays on the map: its outline colour (#0369a1) is drawn around the box.
  const map = page.getByRole("region", { name: "Lookup place" });
  await expect.poll(async () => countPixels(decodePng(await map.screenshot()), ["#0369a1"], 30), { timeout: 10_000 }).toBeGreaterThan(100);
  await page.screenshot({ path: "tests/artifacts/screenshots/lookup-drawn-box.png", fullPage: true });

  // A point and a radius: the radius covers the city's spread and the click's imprecision at this zoom.
  await page.getByLabel("Radius (km)").fill("250");
  await page.getByRole("button", { name: "Drop a point" }).click();
  const q = await pixelOf(page, target.lon, target.lat);
  await page.mouse.click(q.x, q.y);
  await expect(page).toHaveURL(/\/lookup\?.*near=.*radiusKm=250/);
  expect(new URL(page.url()).searchParams.has("bbox")).toBe(false);
  await expect(page.getByRole("link", { name: `Timeline of record ${target.id}` })).toBeVisible();
  await expect(page.getByLabel("Near (lon,lat)")).not.toHaveValue("");
  await expect(page.getByLabel("Box (minLon,minLat,maxLon,maxLat)")).toHaveValue("");
  await page.screenshot({ path: "tests/artifacts/screenshots/lookup-dropped-point.png", fullPage: true });

  await page.getByRole("button", { name: "Clear place" }).click();
  await expect(page).toHaveURL(/\/lookup$/);
  await expect(page.getByRole("link", { name: `Timeline of record ${target.id}` })).toHaveCount(0);
  await expect(page.getByLabel("Near (lon,lat)")).toHaveValue("");
});

// ── export from the list page ───────────────────────────────────────────────────────────────────────────

const PAN_RUN = /(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d])/g;
const luhn = (digits: string) =>
  [...digits].reverse().reduce((sum, c, i) => sum + (i % 2 ? ((Number(c) * 2) % 10) + Math.floor((Number(c) * 2) / 10) : Number(c)), 0) %
    10 ===
  0;
const clearPans = (text: string) => (text.match(PAN_RUN) ?? []).map((r) => r.replace(/[ -]/g, "")).filter(luhn);

async function exportFromList(page: Page, format: RegExp): Promise<string> {
  await page.getByRole("button", { name: "Export ▾" }).click();
  const download = page.waitForEvent("download");
  await page.getByRole("menuitem", { name: format }).click();
  const file = await download;
  const { readFile } = await import("node:fs/promises");
  return readFile((await file.path())!, "utf8");
}

test("the list page exports its URL filter as NDJSON: masked for an analyst, in clear for an auditor who asks", async ({ page }) => {
  const filter = "kind=afc&class=poison,transient_schema";
  await signIn(page, "analyst", `/dead-letters?${filter}`);
  const all = await (await page.request.get("/api/export?format=ndjson")).text();
  const api = await (await page.request.get(`/api/export?format=ndjson&${filter}`)).text();

  const masked = await exportFromList(page, /^NDJSON/);
  await expect(page.getByText(/Exported .* as NDJSON/)).toBeVisible();
  await page.screenshot({ path: "tests/artifacts/screenshots/list-exported.png" });
  // What the page downloaded is the API's export of the page's filter, not of everything.
  expect(masked).toBe(api);
  const lines = masked.trimEnd().split("\n");
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.length).toBeLessThan(all.trimEnd().split("\n").length);
  for (const line of lines) expect(JSON.stringify(JSON.parse(line))).toContain('"afc"');
  expect(masked, "the demo's card-data taps carry a card_pan").toContain("card_pan");
  expect(clearPans(masked)).toEqual([]);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/); // the sign-out's own navigation, before ours
  await signIn(page, "auditor", `/dead-letters?${filter}`);
  await page.getByRole("button", { name: "Export ▾" }).click();
  await page.getByRole("checkbox", { name: "Card data in clear (audited)" }).check();
  await page.getByRole("button", { name: "Export ▾" }).click(); // closes the menu; the choice stays
  const clear = await exportFromList(page, /^NDJSON/);
  expect(clear.trimEnd().split("\n")).toHaveLength(lines.length);
  expect(clearPans(clear).length).toBeGreaterThan(0);
});
