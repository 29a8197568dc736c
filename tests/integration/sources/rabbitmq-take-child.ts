import { createRabbitmqConnector } from "../../../lib/sources/rabbitmq/connector";

// Run by rabbitmq.test.ts as a separate process that takes dead letters, says which, and is then killed
// (SIGKILL) before acknowledging them. Needs `--conditions=react-server` (the connector is server-only).
const [url, queue, max] = process.argv.slice(2);
if (url === undefined || queue === undefined) throw new Error("usage: rabbitmq-take-child <url> <queue> <max>");
const connector = await createRabbitmqConnector({ name: "child", url, options: { queue } });
const taken = await connector.take(Number(max ?? 10), 5000);
process.stdout.write(`${JSON.stringify(taken.map((m) => m.origin.position))}\n`);
setInterval(() => undefined, 60_000);
