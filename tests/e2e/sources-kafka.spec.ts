import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { Kafka, logLevel } from "kafkajs";
import { startKafkaMock, type KafkaMock } from "../support/kafka-mock";
import { signIn } from "./fixtures";

// A Kafka source through the page: an admin adds one for a dead-letter topic that Spring Kafka's recoverer wrote
// (librdkafka's protocol mock, tests/support/kafka-mock.ts), pulls it now and reads a record's decoded origin; then
// removes the source.

const run = randomBytes(4).toString("hex");
const dlt = `parcels-dlt-${run}`;
const source = `kafka-${run}`;
const keys = [`${run}-a`, `${run}-b`];
let mock: KafkaMock;

test.describe.configure({ mode: "serial" });

const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const int64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};

test.beforeAll(async () => {
  mock = await startKafkaMock(1);
  const kafka = new Kafka({ clientId: "e2e", brokers: mock.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: dlt,
    acks: -1,
    messages: keys.map((key, i) => ({
      key: `parcel-${i}`,
      value: JSON.stringify({
        kind: "spatial",
        source: "parcel-service",
        idempotency_key: key,
        observed_at: new Date().toISOString(),
        feature: { type: "Feature", geometry: { type: "Point", coordinates: [2.35 + i / 10, 48.85] }, properties: { parcel: i } },
      }),
      headers: {
        "kafka_dlt-original-topic": "parcels",
        "kafka_dlt-original-partition": int32(2),
        "kafka_dlt-original-offset": int64(BigInt(1000 + i)),
        "kafka_dlt-exception-fqcn": "org.springframework.kafka.listener.ListenerExecutionFailedException",
        "kafka_dlt-exception-message": `geocoder timed out (${key})`,
        tenant: "north",
      },
    })),
  });
  await producer.disconnect();
});

test.afterAll(async () => {
  await mock?.stop();
});

test("an admin adds a Kafka source, pulls it now and sees a record's origin decoded from Spring's headers", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "admin", "/sources");
  await page.getByRole("button", { name: "Add source" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a broker source" });
  await dialog.getByLabel("Name", { exact: true }).fill(source);
  await dialog.getByLabel("Type", { exact: true }).selectOption("kafka");
  await dialog.getByLabel("URL", { exact: true }).fill(`kafka://${mock.brokers[0]}:x`);
  await dialog.getByLabel("Dead-letter topic", { exact: true }).fill("bad topic");
  // Checked in the browser with the server's rules before anything is sent.
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(dialog.getByText(/names a broker that is not host:port/)).toBeVisible();
  await expect(dialog.getByText("topic must be 1–249 of letters, digits, '.', '_' or '-'")).toBeVisible();
  await dialog.getByLabel("URL", { exact: true }).fill(mock.url);
  await dialog.getByLabel("Dead-letter topic", { exact: true }).fill(dlt);
  await dialog.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByText(`Source ${source} added`)).toBeVisible();

  const card = page.getByRole("article", { name: source });
  await expect(card).toContainText("Kafka");
  await expect(card).toContainText(`topic ${dlt}`);
  await expect(card).toContainText("connected");

  await card.getByRole("button", { name: "Pull now" }).click();
  await expect(page.getByText(`Pulled from ${source}`)).toBeVisible({ timeout: 60_000 });
  await expect(card).toContainText("2 new");

  await card.getByRole("link", { name: /Records/ }).click();
  await page.getByRole("row").filter({ hasText: keys[0] }).first().click();
  const origin = page.getByRole("region", { name: "Origin", exact: true });
  await expect(origin).toBeVisible();
  await expect(origin).toContainText("Kafka");
  await expect(origin).toContainText("topic");
  await expect(origin).toContainText("parcels");
  await expect(origin).toContainText(`geocoder timed out (${keys[0]})`);
  await expect(origin.getByRole("row", { name: "tenant" })).toContainText("north");

  await page.goto("/sources");
  await page.getByRole("article", { name: source }).getByRole("button", { name: "Remove" }).click();
  await page
    .getByRole("dialog", { name: `Remove source ${source}?` })
    .getByRole("button", { name: "Remove source" })
    .click();
  await expect(page.getByText(`Removed ${source}`)).toBeVisible();
});
