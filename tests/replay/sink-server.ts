import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { seededRandom } from "../support/seeded-random";

// A receiver for the HTTP sink in tests: it deduplicates by Idempotency-Key like a real one would, can fail
// or hang on a share of requests, and records every request it saw and whether its response was actually
// delivered (a response to a client that gave up never completes).

export interface Delivery {
  key: string;
  kind: string;
  entity: string | null;
  observedAt: string;
  arrivedAt: number;
  /** the sender's User-Agent (the HTTP sink names its worker there) */
  sender: string;
  /** what the server did: applied | replayed | failed | throttled | refused */
  action: string;
  status: number;
  /** the response reached the client (false: the client had timed out or gone) */
  completed: boolean;
  doneAt: number;
}

export interface SinkServerOptions {
  /** share of requests answered 500 without applying */
  failRate?: number;
  /** share of requests that apply but answer only after `hangMs` (past the client's timeout) */
  hangRate?: number;
  hangMs?: number;
  /** fixed processing delay per request */
  delayMs?: number;
  seed?: number;
  /** decide the answer yourself (status, headers); `null` falls back to the default behaviour */
  decide?: (
    body: { idempotency_key: string; kind: string },
    n: number,
  ) => { status: number; headers?: Record<string, string>; apply?: boolean } | null;
}

export interface SinkServer {
  url: string;
  deliveries: Delivery[];
  /** keys applied (once each: a resent key is answered as replayed) */
  applied: Set<string>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startSinkServer(opts: SinkServerOptions = {}): Promise<SinkServer> {
  const random = seededRandom(opts.seed ?? 1);
  const deliveries: Delivery[] = [];
  const applied = new Set<string>();
  let n = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const body = JSON.parse(await readBody(req)) as {
      idempotency_key: string;
      kind: string;
      observed_at: string;
      payload: Record<string, unknown>;
    };
    // Node hands a header over one character per byte: the key travels as its UTF-8 bytes.
    const raw = req.headers["idempotency-key"];
    const key = typeof raw === "string" ? Buffer.from(raw, "latin1").toString("utf8") : raw;
    if (key !== body.idempotency_key) throw new Error(`Idempotency-Key header ${String(key)} ≠ body key ${body.idempotency_key}`);
    const entity = body.kind === "afc" ? String(body.payload.device_id ?? "") : String(body.payload.id ?? "");
    const d: Delivery = {
      key: body.idempotency_key,
      kind: body.kind,
      entity: entity || null,
      observedAt: body.observed_at,
      arrivedAt,
      sender: String(req.headers["user-agent"] ?? ""),
      action: "",
      status: 0,
      completed: false,
      doneAt: 0,
    };
    deliveries.push(d);
    const custom = opts.decide?.(body, n++);
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    let status: number;
    let headers: Record<string, string> = {};
    const apply = () => {
      if (applied.has(d.key)) return false;
      applied.add(d.key);
      return true;
    };
    if (custom) {
      status = custom.status;
      headers = custom.headers ?? {};
      d.action = custom.apply ? (apply() ? "applied" : "replayed") : `answered ${status}`;
    } else if (random() < (opts.failRate ?? 0)) {
      status = 500;
      d.action = "failed";
    } else {
      const hang = random() < (opts.hangRate ?? 0);
      if (hang) await new Promise((r) => setTimeout(r, opts.hangMs ?? 2000));
      if (apply()) {
        d.action = "applied";
        status = 201;
      } else {
        d.action = "replayed";
        status = 200;
        headers = { "idempotent-replayed": "true" };
      }
    }
    d.status = status;
    res.on("finish", () => {
      d.completed = true;
      d.doneAt = Date.now();
    });
    if (res.destroyed || req.socket.destroyed) return; // the client gave up: nothing reaches it
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ ok: status < 300 }));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400).end(String(err));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    deliveries,
    applied,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
