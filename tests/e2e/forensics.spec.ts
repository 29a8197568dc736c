import { expect, test } from "@playwright/test";
import { signIn } from "./fixtures";

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
  await expect(page.getByRole("link", { name: "Download JSON" })).toHaveAttribute("href", `/api/dead-letters/${tap!.id}/timeline?download=1`);

  const json = await page.request.get(`/api/dead-letters/${tap!.id}/timeline`);
  const body = (await json.json()) as { events: { action: string }[]; masked: boolean };
  expect(body.masked).toBe(true);
  expect(body.events[0]?.action).toBe("dead_letter.ingested");
});
