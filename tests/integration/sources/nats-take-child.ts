// Run by nats.test.ts as a separate process: takes dead letters, prints their positions, and dies without
// acknowledging or closing anything — a crash between take() and ack().
//   node --conditions=react-server --import tsx nats-take-child.ts <url> <source name> <stream> <max>
import { createNatsConnector } from "../../../lib/sources/nats/connector";

const [url = "", name = "", stream = "", max = "1"] = process.argv.slice(2);
const connector = await createNatsConnector({ name, url, options: { stream, ackWaitMs: 1000 } });
const taken = await connector.take(Number(max), 2000);
process.stdout.write(`${JSON.stringify(taken.map((m) => m.origin.position))}\n`, () => process.kill(process.pid, "SIGKILL"));
