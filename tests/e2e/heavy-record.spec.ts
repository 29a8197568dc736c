import { expect, test } from "@playwright/test";
import { ingestAsProducer, signIn, uniqueSuffix } from "./fixtures";

// A heavy record (past 256 KB stored: here a 60,000-vertex polygon) is not inlined in its page; the browser loads
// it from the API, which builds the answer off the server's main thread. The analyst sees the record and its raw
// envelope as for any other.

const SHOTS = "tests/artifacts/screenshots";

function ring(n: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i <= n; i++) {
    const a = (2 * Math.PI * (i % n)) / n;
    out.push([Number((2.35 + 0.01 * Math.cos(a)).toFixed(6)), Number((48.85 + 0.01 * Math.sin(a)).toFixed(6))]);
  }
  return out;
}

test("a heavy record's page loads it from the API and shows it", async ({ page, playwright, baseURL }) => {
  test.setTimeout(120_000);
  const key = `heavy-e2e-${uniqueSuffix()}`;
  const id = await ingestAsProducer(playwright.request, baseURL, {
    kind: "spatial",
    source: "parcels",
    idempotency_key: key,
    observed_at: 1_700_000_000,
    dead_letter_reason: "HTTP 503",
    feature: { type: "Feature", id: key, geometry: { type: "Polygon", coordinates: [ring(60_000)] }, properties: {} },
  });

  const served: string[] = [];
  page.on("response", (r) => {
    if (r.url().endsWith(`/api/dead-letters/${id}`)) served.push(r.headers()["content-type"] ?? "");
  });
  await signIn(page, "analyst", `/dead-letters/${id}`);
  await expect(page.getByRole("heading", { name: `Dead letter #${id}` })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(/Exactly as the producer sent it \([\d,]{9} characters\)/)).toBeVisible();
  // The page's HTML did not carry the record: the browser fetched it.
  expect(served).toEqual([expect.stringContaining("application/json")]);
  await page.screenshot({ path: `${SHOTS}/heavy-record.png` });
});
