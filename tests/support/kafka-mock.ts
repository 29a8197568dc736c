import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";

// A Kafka cluster for tests: librdkafka's protocol mock (no Kafka broker can be installed on these machines),
// started through Debian's kcat (`-X test.mock.num.brokers=N`), which prints the mock's bootstrap servers.
//
// One defect of the mock is patched on the wire: its Metadata responses name controller 0, a broker that does not
// exist (librdkafka 2.0.2 never sets mcluster->controller_id), and kafkajs asks the controller for an idempotent
// producer's id. Each mock broker therefore sits behind a local relay that rewrites, in Metadata responses only,
// the controller id to a real broker and each broker's port to its relay's (so every later connection also goes
// through a relay). Every other byte passes untouched.

export interface KafkaMock {
  /** "host:port" of each relay, to give a client as its brokers */
  brokers: string[];
  /** kafka://… for a Redrive source */
  url: string;
  stop(): Promise<void>;
}

const METADATA = 3;

interface Pending {
  apiKey: number;
  apiVersion: number;
}

/** Splits a byte stream into Kafka frames (int32 size + payload) and hands each one over whole. */
function framer(onFrame: (frame: Buffer) => Buffer): (chunk: Buffer) => Buffer[] {
  let buffered = Buffer.alloc(0);
  return (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    const out: Buffer[] = [];
    while (buffered.length >= 4) {
      const size = buffered.readInt32BE(0);
      if (buffered.length < 4 + size) break;
      out.push(onFrame(buffered.subarray(0, 4 + size)));
      buffered = buffered.subarray(4 + size);
    }
    return out;
  };
}

/** Rewrites a non-flexible (v1–v8) Metadata response in place; other versions pass as they are. */
function patchMetadata(frame: Buffer, version: number, relayPort: Map<number, number>): Buffer {
  if (version < 1 || version > 8) return frame;
  const b = Buffer.from(frame);
  let at = 8; // size, correlation id
  if (version >= 3) at += 4; // throttle_time_ms
  const count = b.readInt32BE(at);
  at += 4;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(b.readInt32BE(at));
    at += 4;
    at += 2 + b.readInt16BE(at);
    const port = b.readInt32BE(at);
    const relay = relayPort.get(port);
    if (relay !== undefined) b.writeInt32BE(relay, at);
    at += 4;
    const rack = b.readInt16BE(at); // v1+
    at += 2 + Math.max(rack, 0);
  }
  if (version >= 2) {
    const cluster = b.readInt16BE(at);
    at += 2 + Math.max(cluster, 0);
  }
  const controller = b.readInt32BE(at);
  if (!ids.includes(controller) && ids[0] !== undefined) b.writeInt32BE(ids[0], at);
  return b;
}

function relay(target: { host: string; port: number }, relayPort: Map<number, number>): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pending = new Map<number, Pending>();
    const requests = framer((frame) => {
      pending.set(frame.readInt32BE(8), { apiKey: frame.readInt16BE(4), apiVersion: frame.readInt16BE(6) });
      return frame;
    });
    const responses = framer((frame) => {
      const id = frame.readInt32BE(4);
      const req = pending.get(id);
      pending.delete(id);
      return req?.apiKey === METADATA ? patchMetadata(frame, req.apiVersion, relayPort) : frame;
    });
    client.on("data", (chunk: Buffer) => {
      for (const f of requests(chunk)) upstream.write(f);
    });
    upstream.on("data", (chunk: Buffer) => {
      for (const f of responses(chunk)) client.write(f);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function bootstrapOf(kcat: ChildProcess): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let said = "";
    const timer = setTimeout(() => reject(new Error(`kcat printed no mock bootstrap servers within 10 s: ${said}`)), 10_000);
    kcat.once("error", (e) => reject(new Error(`cannot start kcat (apt-get install kcat): ${e.message}`)));
    kcat.once("exit", (code) => reject(new Error(`kcat exited (${code}) before the mock was up: ${said}`)));
    kcat.stderr?.on("data", (d: Buffer) => {
      said += d.toString();
      // "%5|…|MOCK|…: Mock cluster enabled: original bootstrap.servers and security.protocol ignored and replaced with 127.0.0.1:41719,…"
      const m = /replaced with (\S+)/.exec(said);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1].split(","));
      }
    });
  });
}

/** Starts a mock cluster of `brokers` brokers; `stop` kills kcat and closes the relays. */
export async function startKafkaMock(brokers = 3): Promise<KafkaMock> {
  // A consumer keeps kcat (and so the mock inside it) running; its own topic stays empty.
  const kcat = spawn("kcat", ["-b", "127.0.0.1:1", "-C", "-q", "-t", "__kcat_keepalive", "-X", `test.mock.num.brokers=${brokers}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let targets: string[];
  try {
    targets = await bootstrapOf(kcat);
  } catch (e) {
    kcat.kill("SIGKILL");
    throw e;
  }
  kcat.stderr?.resume();
  const relayPort = new Map<number, number>();
  const servers: net.Server[] = [];
  for (const t of targets) {
    const [host = "127.0.0.1", port = "0"] = t.split(":");
    const server = await relay({ host, port: Number(port) }, relayPort);
    const address = server.address();
    if (address && typeof address === "object") relayPort.set(Number(port), address.port);
    servers.push(server);
  }
  const relays = [...relayPort.values()].map((p) => `127.0.0.1:${p}`);
  return {
    brokers: relays,
    url: `kafka://${relays.join(",")}`,
    async stop() {
      for (const s of servers) s.close();
      kcat.kill("SIGTERM");
      await new Promise<void>((resolve) => {
        if (kcat.exitCode !== null || kcat.signalCode !== null) resolve();
        else kcat.once("exit", () => resolve());
      });
    },
  };
}
