import { mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import amqp from "amqplib";
import { createClient } from "redis";
import { signIn } from "./fixtures";

// A broker source end to end, as an admin does it: add a Redis source through the form, pull its dead letters
// now, follow it to its records and see where one came from; then an analyst sees the page without the admin's
// buttons, and the admin pauses, resumes and removes the source. Redis is the one at REDIS_URL (the integration
// tests' broker); every key this file makes carries the run's prefix and is deleted afterwards.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const run = `redrive-e2e:${randomBytes(4).toString("hex")}`;
const stream = `${run}:parcels`;
const dlq = `${run}:parcels:dlq`;
const source = `parcels-${run.slice(-8)}`;
const keys = [`${run}-a`, `${run}-b`];

type Redis = ReturnType<typeof createClient>;
let redis: Redis;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  redis = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false } });
  await redis.connect();
  // The application's stream, where "back to origin" would publish; the producer's dead-letter stream holds two
  // envelopes it gave up on, each naming the stream and entry it came from (dlqStream mode's convention).
  await redis.xAdd(stream, "*", { body: "{}" });
  for (const [i, key] of keys.entries()) {
    const envelope = {
      kind: "spatial",
      source: "parcel-service",
      idempotency_key: key,
      observed_at: new Date().toISOString(),
      feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35 + i / 10, 48.85] }, properties: { parcel: i } },
      dead_letter_reason: `geocoder timed out (${key})`,
    };
    await redis.xAdd(dlq, "*", {
      body: JSON.stringify(envelope),
      source_stream: stream,
      source_id: `1764600000000-${i}`,
      error: "timeout",
    });
  }
});

test.afterAll(async () => {
  for await (const found of redis.scanIterator({ MATCH: `${run}*`, COUNT: 1000 })) if (found.length) await redis.del(found);
  await redis.quit();
});

test("an admin adds a Redis source, pulls it now, follows it to its records and sees a record's origin", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "admin", "/sources");
  await expect(page.getByRole("heading", { name: "Broker sources" })).toBeVisible();

  await page.getByRole("button", { name: "Add source" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a broker source" });
  // Checked in the browser with the server's schema before anything is sent.
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(dialog.getByText("must not be blank")).toBeVisible();
  await dialog.getByLabel("Name", { exact: true }).fill(source);
  await dialog.getByLabel("Type", { exact: true }).selectOption("redis");
  await dialog.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:6379");
  await expect(dialog.getByText("must use the redis:// or rediss:// scheme, not http://")).toBeVisible();
  await dialog.getByLabel("URL", { exact: true }).fill(REDIS_URL);
  await dialog.getByLabel("Read from a dead-letter stream").check();
  await dialog.getByLabel("Application stream", { exact: true }).fill(stream);
  await dialog.getByLabel("Application group", { exact: true }).fill("workers");
  await dialog.getByLabel("Dead-letter stream", { exact: true }).fill(dlq);
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByText(`Source ${source} added`)).toBeVisible();
  await expect(dialog).toBeHidden();

  const card = page.getByRole("article", { name: source });
  await expect(card).toContainText("Redis Streams");
  await expect(card).toContainText("redis://127.0.0.1:6379");
  await expect(card).toContainText(`dead-letter stream ${dlq} (group redrive)`);
  // Adding a source tests it at once: the broker answered, and says what waits.
  await expect(card).toContainText("connected");
  await expect(card).toContainText("Waiting in the broker2as of");
  await expect(card).toContainText("Last pullnever");

  // The server's refusal is shown next to the field it names.
  await page.getByRole("button", { name: "Add source" }).click();
  await dialog.getByLabel("Name", { exact: true }).fill(source);
  await dialog.getByLabel("Type", { exact: true }).selectOption("redis");
  await dialog.getByLabel("URL", { exact: true }).fill(REDIS_URL);
  await dialog.getByLabel("Application stream", { exact: true }).fill(stream);
  await dialog.getByLabel("Application group", { exact: true }).fill("workers");
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveAccessibleDescription(/is taken/);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  await card.getByRole("button", { name: "Pull now" }).click();
  await expect(page.getByText(`Pulled from ${source}`)).toBeVisible();
  await expect(page.getByText("2 pulled: 2 new records, 0 already stored")).toBeVisible();
  await expect(card).toContainText("connected");
  await expect(card).toContainText("2 pulled · 2 new · 0 already stored");
  await page.screenshot({ path: `${SHOTS}/sources-admin.png`, fullPage: true });

  await card.getByRole("link", { name: /Records/ }).click();
  await expect(page).toHaveURL(new RegExp(`/dead-letters\\?origin=${source}$`));
  await expect(page.getByRole("button", { name: `Remove filter pulled from: ${source}` })).toBeVisible();
  for (const key of keys) await expect(page.getByRole("row").filter({ hasText: key })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "geocoder timed out" })).toHaveCount(2);

  await page.getByRole("row").filter({ hasText: keys[0] }).getByText(`geocoder timed out (${keys[0]})`).click();
  await expect(page).toHaveURL(/\/dead-letters\/\d+\?origin=/);
  const origin = page.getByRole("region", { name: "Origin", exact: true });
  await expect(origin).toBeVisible();
  await expect(origin.getByRole("link", { name: source })).toHaveAttribute("href", "/sources");
  await expect(origin).toContainText("Redis Streams");
  await expect(origin).toContainText(`stream ${stream}`);
  await expect(origin).toContainText("dead_letter_stream");
  await expect(origin.getByRole("row", { name: "error" })).toContainText("timeout");
  await expect(origin.getByRole("row", { name: "source_id" })).toContainText("1764600000000-0");
  await page.screenshot({ path: `${SHOTS}/record-origin.png`, fullPage: true });

  // Back on the list, the source's chip goes and takes the filter with it.
  await page.goto(`/dead-letters?origin=${source}`);
  await page.getByRole("button", { name: `Remove filter pulled from: ${source}` }).click();
  await expect(page).toHaveURL(/\/dead-letters$/);
});

test("an analyst sees the sources and their records, without the admin's buttons", async ({ page }) => {
  await signIn(page, "analyst", "/dead-letters");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sources" }).click();
  await expect(page).toHaveURL(/\/sources$/);
  const card = page.getByRole("article", { name: source });
  await expect(card).toContainText("connected");
  await expect(card.getByRole("link", { name: /Records/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add source" })).toHaveCount(0);
  for (const name of ["Pull now", "Pause", "Edit", "Remove"]) await expect(card.getByRole("button", { name })).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/sources-analyst.png`, fullPage: true });
});

test("an admin pauses, resumes and removes the source", async ({ page }) => {
  await signIn(page, "admin", "/sources");
  const card = page.getByRole("article", { name: source });
  await card.getByRole("button", { name: "Pause" }).click();
  await expect(card).toContainText("paused");
  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card).toContainText("connected");
  await card.getByRole("button", { name: "Remove" }).click();
  await page
    .getByRole("dialog", { name: `Remove source ${source}?` })
    .getByRole("button", { name: "Remove source" })
    .click();
  await expect(page.getByText(`Removed ${source}`)).toBeVisible();
  await expect(card).toHaveCount(0);
  // Redrive's group on the dead-letter stream has no consumer of Redrive's left.
  const groups = await redis.xInfoGroups(dlq);
  expect(groups.find((g) => g.name === "redrive")?.consumers ?? 0).toBe(0);
});

test("adding a source the broker refuses says so as the dialog closes, with the broker's answer", async ({ page, baseURL, browser }) => {
  const dead = `dead-${run.slice(-8)}`;
  await signIn(page, "admin", "/sources");
  await page.getByRole("button", { name: "Add source" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a broker source" });
  await dialog.getByLabel("Name", { exact: true }).fill(dead);
  await dialog.getByLabel("Type", { exact: true }).selectOption("redis");
  await dialog.getByLabel("URL", { exact: true }).fill("redis://127.0.0.1:1"); // nothing listens there
  await dialog.getByLabel("Read from a dead-letter stream").check();
  await dialog.getByLabel("Application stream", { exact: true }).fill(stream);
  await dialog.getByLabel("Application group", { exact: true }).fill("workers");
  await dialog.getByLabel("Dead-letter stream", { exact: true }).fill(dlq);
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByText(`Source ${dead} added, but the broker test failed`)).toBeVisible();
  await expect(page.getByText(/ECONNREFUSED|refused/i).first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/sources-added-unreachable.png` });
  // Those who read sources but do not manage them see what kind of failure it is, not the broker's words.
  const readers = await browser.newContext({ baseURL });
  try {
    const reader = await readers.newPage();
    await signIn(reader, "analyst", "/sources");
    const card = reader.getByRole("article", { name: dead });
    await expect(card).toContainText("the broker could not be reached");
    await expect(card).not.toContainText(/ECONNREFUSED/);
    await reader.screenshot({ path: `${SHOTS}/sources-failure-category-analyst.png`, fullPage: true });
  } finally {
    await readers.close();
  }
  expect((await page.request.delete(`/api/sources/${dead}`, { headers: { origin: baseURL ?? "" } })).ok()).toBe(true);
});

test("an admin fixes a wrong password with Edit: the secret is never shown and the source connects", async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const RABBITMQ_URL = process.env.REDRIVE_TEST_RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672";
  const queue = `${run}:rabbit-dlq`;
  const name = `rabbit-${run.slice(-8)}`;
  const conn = await amqp.connect(RABBITMQ_URL);
  const ch = await conn.createChannel();
  await ch.assertQueue(queue, { durable: false });
  const wrong = new URL(RABBITMQ_URL);
  wrong.password = "typo-in-the-password";
  const headers = { origin: baseURL ?? "" };
  try {
    await signIn(page, "admin", "/sources");
    const added = await page.request.post("/api/sources", {
      headers,
      data: { name, type: "rabbitmq", url: wrong.toString(), kind: "spatial", options: { queue } },
    });
    expect(added.status()).toBe(201);
    await page.reload();
    const card = page.getByRole("article", { name });
    await expect(card).toContainText("error");

    await card.getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog", { name: `Edit source ${name}` });
    await expect(dialog.getByLabel("URL", { exact: true })).toHaveValue("");
    await expect(dialog.getByLabel("URL", { exact: true })).toHaveAttribute("placeholder", /^amqp:\/\/redacted@127\.0\.0\.1:5672/);
    await expect(dialog.getByLabel("Password", { exact: true })).toHaveValue("");
    await expect(dialog.getByLabel("Password", { exact: true })).toHaveAttribute("placeholder", /kept unless replaced/);
    await expect(dialog.getByLabel("Password", { exact: true })).toHaveAttribute("type", "password");
    await expect(dialog.getByRole("button", { name: "Save changes" })).toBeDisabled();
    expect(await page.content()).not.toContain("typo-in-the-password");
    await dialog.getByLabel("Password", { exact: true }).fill(decodeURIComponent(new URL(RABBITMQ_URL).password));
    await expect(dialog.getByRole("button", { name: "Save changes" })).toBeEnabled();
    // Buttons fade between states (transition-colors): the picture shows the enabled one.
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${SHOTS}/sources-edit.png`, fullPage: true });
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText(`Updated ${name}`)).toBeVisible();
    await expect(dialog).toBeHidden();

    await card.getByRole("button", { name: "Pull now" }).click();
    await expect(page.getByText(`Pulled from ${name}`)).toBeVisible();
    await expect(card).toContainText("connected");
    await page.screenshot({ path: `${SHOTS}/sources-edited.png`, fullPage: true });
  } finally {
    await page.request.delete(`/api/sources/${encodeURIComponent(name)}`, { headers });
    await ch.deleteQueue(queue);
    await conn.close();
  }
});
