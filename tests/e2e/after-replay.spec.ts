import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { approveBatch, signIn, startWorker, stopWorker } from "./fixtures";

// A record that fails again after its replay comes back to triage (issue 41 point 1), with a real RabbitMQ: a work
// queue whose dead letters go through a dead-letter exchange to the DLQ Redrive pulls. The consumer (this spec)
// rejects a parcel; Redrive pulls it, a supervisor replays it back to its origin (four eyes, a real worker), the
// consumer rejects it again, and the next pull brings the record back to triage: pending, counted in its group,
// and the record page and timeline say it failed again after replay in its batch.

const SHOTS = "tests/artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

const RABBITMQ_URL = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672";
const run = randomBytes(4).toString("hex");
const exchange = `ar-${run}.parcels`;
const dlx = `ar-${run}.dlx`;
const work = `ar-${run}.work`;
const dlq = `ar-${run}.dlq`;
const source = `ar-${run}`;
const key = `ar-${run}-parcel-1`;
// The worker unseals the source's URL with the server's key (playwright.config.ts).
const SEALING = { REDRIVE_SECRET_KEY: "e2e-sealing-key-0123456789abcdefghijklmnopqrstuvwxyz" };

let model: ChannelModel;
let channel: Channel;
let worker: ChildProcess | null = null;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  model = await amqp.connect(RABBITMQ_URL);
  channel = await model.createChannel();
  await channel.assertExchange(exchange, "topic", { durable: false, autoDelete: false });
  await channel.assertExchange(dlx, "fanout", { durable: false, autoDelete: false });
  await channel.assertQueue(work, { durable: false, arguments: { "x-dead-letter-exchange": dlx } });
  await channel.bindQueue(work, exchange, "parcels.#");
  await channel.assertQueue(dlq, { durable: false });
  await channel.bindQueue(dlq, dlx, "");
  const envelope = {
    kind: "spatial",
    source: "parcel-service",
    idempotency_key: key,
    observed_at: new Date().toISOString(),
    feature: {
      type: "Feature",
      id: key,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [12.49, 41.89],
            [12.5, 41.89],
            [12.5, 41.9],
            [12.49, 41.9],
            [12.49, 41.89],
          ],
        ],
      },
      properties: { parcel: 1 },
    },
    dead_letter_reason: "parcel registry refused the polygon",
  };
  channel.publish(exchange, "parcels.new", Buffer.from(JSON.stringify(envelope)), {
    messageId: `producer-msg-${run}`,
    contentType: "application/json",
  });
  await rejectNext();
});

test.afterAll(async () => {
  await stopWorker(worker);
  for (const q of [work, dlq]) await channel.deleteQueue(q).catch(() => undefined);
  for (const x of [exchange, dlx]) await channel.deleteExchange(x).catch(() => undefined);
  await model.close().catch(() => undefined);
});

/** The consumer gives up on the next message in the work queue (requeue=false): RabbitMQ dead-letters it to the DLQ. */
async function rejectNext(): Promise<void> {
  await expect
    .poll(
      async () => {
        const msg = await channel.get(work, { noAck: false });
        if (msg === false) return false;
        channel.nack(msg, false, false);
        return true;
      },
      { timeout: 30_000, intervals: [200] },
    )
    .toBe(true);
  await expect.poll(async () => (await channel.checkQueue(dlq)).messageCount, { timeout: 10_000 }).toBe(1);
}

async function pullNow(page: Page, summary: string): Promise<void> {
  await page.goto("/sources");
  const card = page.getByRole("article", { name: source });
  await card.getByRole("button", { name: "Pull now" }).click();
  await expect(page.getByText(summary)).toBeVisible();
}

async function switchTo(page: Page, role: "admin" | "supervisor" | "supervisor2" | "analyst", next: string): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, role, next);
}

test("a parcel rejected again after its replay to origin is back in triage, counted in its group, and says so", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const headers = { origin: baseURL ?? "" };
  await signIn(page, "admin", "/sources");
  const added = await page.request.post("/api/sources", {
    data: { name: source, type: "rabbitmq", url: RABBITMQ_URL, kind: "spatial", options: { queue: dlq } },
    headers,
  });
  expect(added.status(), await added.text()).toBe(201);
  await pullNow(page, "1 pulled: 1 new record, 0 already stored");

  const list = await page.request.get(`/api/dead-letters?origin=${source}`);
  const items = ((await list.json()) as { items: { id: string; status: string }[] }).items;
  expect(items.map((r) => r.status)).toEqual(["pending"]);
  const id = items[0]!.id;

  // A supervisor approves it and creates a batch back to its origin; a second supervisor approves and starts it.
  await switchTo(page, "supervisor", "/replays");
  expect((await page.request.post("/api/dead-letters/bulk", { data: { action: "approve", ids: [id] }, headers })).ok()).toBe(true);
  const created = await page.request.post("/api/replays", { data: { ids: [id], sink: { type: "origin" }, ratePerSecond: 10 }, headers });
  expect(created.status(), await created.text()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  await switchTo(page, "supervisor2", `/replays/${batchId}`);
  await approveBatch(page);
  await page.getByRole("button", { name: "Start" }).click();
  worker = startWorker([], SEALING);
  await expect(page.getByTestId("batch-status")).toHaveText("completed", { timeout: 60_000 });
  // Stopped before the consumer rejects again, so the pull below is the one this spec clicks (the worker pulls too).
  await stopWorker(worker);
  worker = null;
  const replayed = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as { status: string };
  expect(replayed.status).toBe("replayed");

  // The consumer rejects the replayed parcel again; the pull takes the new dead letter for a new failure.
  await rejectNext();
  await switchTo(page, "admin", "/sources");
  await pullNow(page, "1 pulled: 0 new records, 1 failed again after replay (back in triage), 0 already stored");
  await page.screenshot({ path: `${SHOTS}/after-replay-pull.png` });

  // Back in triage: the list's pending records hold it, its group counts it, the page and the timeline say why.
  await switchTo(page, "analyst", `/dead-letters/${id}`);
  const detail = (await (await page.request.get(`/api/dead-letters/${id}`)).json()) as {
    status: string;
    failureCount: number;
    reasonGroup: string;
    failures: { origin: string; batchId: string | null }[];
  };
  expect(detail).toMatchObject({ status: "pending", failureCount: 2 });
  expect(detail.failures.at(-1)).toMatchObject({ origin: "pull", batchId });
  const pending = await page.request.get(`/api/dead-letters?origin=${source}&status=pending`);
  expect(((await pending.json()) as { items: { id: string }[] }).items.map((r) => r.id)).toEqual([id]);
  const groups = await page.request.get(`/api/groups?source=parcel-service`);
  const group = ((await groups.json()) as { groups: { reasonGroup: string; unresolved: number }[] }).groups.find(
    (g) => g.reasonGroup === detail.reasonGroup,
  );
  expect(group?.unresolved).toBe(1);

  const header = page.locator("header").filter({ has: page.getByRole("heading", { name: `Dead letter #${id}` }) });
  await expect(header.getByText("pending", { exact: true })).toBeVisible();
  const notice = page.getByRole("status").filter({ hasText: "Failed again after replay" });
  await expect(notice).toContainText(`Failed again after replay in batch #${batchId}`);
  await expect(notice.getByRole("link", { name: `batch #${batchId}` })).toHaveAttribute("href", `/replays/${batchId}`);
  await expect(page.getByRole("button", { name: /Approve/ })).toBeEnabled();
  await page.screenshot({ path: `${SHOTS}/after-replay-record.png`, fullPage: true });
  await page.getByRole("tab", { name: "Failure history" }).click();
  await expect(page.getByRole("cell", { name: `failed again after replay in batch #${batchId} (pulled from the broker)` })).toBeVisible();

  await page.goto(`/lookup/timeline/${id}`);
  await expect(page.getByText(new RegExp(`Failed again after replay in batch #${batchId}.*back in triage`))).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/after-replay-timeline.png`, fullPage: true });
});
