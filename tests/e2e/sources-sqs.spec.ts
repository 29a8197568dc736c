import { randomBytes } from "node:crypto";
import { CreateQueueCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { expect, test } from "@playwright/test";
import { motoSkip, startMotoServer, type MotoServer } from "../support/moto-server";
import { signIn } from "./fixtures";

// An SQS source end to end, as an admin adds it: the dead-letter queue's URL with an access key in it (on a
// moto_server this file starts), shown afterwards without the key; "Pull now" stores its dead letter, whose origin
// names Amazon SQS, the source queue and the message attributes.

const skip = motoSkip();
const run = randomBytes(3).toString("hex");
const source = `orders-sqs-${run}`;
const key = `sqs-e2e-${run}`;
let moto: MotoServer;
let dlqUrl = "";
let sourceUrl = "";

test.describe.configure({ mode: "serial" });
test.skip(skip !== null, skip ?? "");

test.beforeAll(async () => {
  if (skip) return;
  moto = await startMotoServer();
  const sqs = new SQSClient({ region: "us-east-1", endpoint: moto.endpoint, credentials: { accessKeyId: "e2e", secretAccessKey: "e2e" } });
  sourceUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `orders-${run}` }))).QueueUrl!;
  dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `orders-${run}-dlq` }))).QueueUrl!;
  const envelope = {
    kind: "spatial",
    source: "order-service",
    idempotency_key: key,
    observed_at: new Date().toISOString(),
    feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35, 48.85] }, properties: { order: 1 } },
    dead_letter_reason: `address not found (${key})`,
  };
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: dlqUrl,
      MessageBody: JSON.stringify(envelope),
      MessageAttributes: { tenant: { DataType: "String", StringValue: "acme" } },
    }),
  );
  sqs.destroy();
});

test.afterAll(async () => {
  await moto?.stop();
});

test("an admin adds an SQS source with an access key, sees it without the key, pulls it and sees a record's SQS origin", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, "admin", "/sources");
  await page.getByRole("button", { name: "Add source" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a broker source" });
  await dialog.getByLabel("Name", { exact: true }).fill(source);
  await dialog.getByLabel("Type", { exact: true }).selectOption("sqs");
  await dialog.getByLabel("URL", { exact: true }).fill("amqp://host/1/q");
  // Checked in the browser with the server's rule once the admin tries to add.
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(dialog.getByText("must use the https:// (or http://) scheme of a queue URL, not amqp://")).toBeVisible();
  await dialog.getByLabel("URL", { exact: true }).fill(dlqUrl.replace("http://", "http://AKIDE2E:e2e%2Fs3cret@"));
  await dialog.getByLabel("Source queue URL", { exact: true }).fill(sourceUrl);
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByText(`Source ${source} added`)).toBeVisible();

  const card = page.getByRole("article", { name: source });
  await expect(card).toContainText("Amazon SQS");
  await expect(card).toContainText(`back to ${sourceUrl} unless SQS names the queue`);
  await expect(card).toContainText("connected");
  await expect(card).not.toContainText("s3cret");
  await expect(card).not.toContainText("AKIDE2E");

  await card.getByRole("button", { name: "Pull now" }).click();
  await expect(page.getByText("1 pulled: 1 new record, 0 already stored")).toBeVisible();

  await page.goto(`/dead-letters?origin=${source}`);
  await page.getByRole("row").filter({ hasText: key }).getByText(`address not found (${key})`).click();
  const origin = page.getByRole("region", { name: "Origin", exact: true });
  await expect(origin).toContainText("Amazon SQS");
  await expect(origin).toContainText(sourceUrl);
  await expect(origin).toContainText("max_receive_count");
  await expect(origin.getByRole("row", { name: "tenant" })).toContainText("acme");
});
