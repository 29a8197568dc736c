import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A reverse proxy of a few lines for tests that run several Redrive servers: requests alternate between the
// upstreams, and a request whose upstream refuses or drops the connection before answering goes to the next one,
// as nginx's `proxy_next_upstream error` does. It appends the client to X-Forwarded-For (the servers trust it as
// REDRIVE_TRUSTED_PROXIES=127.0.0.1) and keeps the Host header, so the servers see the origin the client used.

export interface RoundRobinProxy {
  url: string;
  /** answers per upstream port */
  served: Map<number, number>;
  /** every answer: which upstream gave it (a test finds the server that accepted a request) */
  answers: { method: string; path: string; port: number; status: number }[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreamPorts: number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const served = new Map<number, number>();
  const answers: RoundRobinProxy["answers"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
      const headers: IncomingHttpHeaders = { ...req.headers, "x-forwarded-for": forwarded, connection: "close" };
      const attempt = (left: number) => {
        const port = upstreamPorts[next++ % upstreamPorts.length]!;
        const up = httpRequest({ host: "127.0.0.1", port, method: req.method, path: req.url, headers, agent: false }, (upRes) => {
          served.set(port, (served.get(port) ?? 0) + 1);
          answers.push({ method: req.method ?? "GET", path: req.url ?? "/", port, status: upRes.statusCode ?? 502 });
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        });
        up.on("error", () => {
          if (res.headersSent) return res.destroy();
          if (left > 1) attempt(left - 1);
          else res.writeHead(502, { "content-type": "application/json" }).end('{"error":{"code":"bad_gateway"}}');
        });
        up.end(body);
      };
      attempt(upstreamPorts.length * 3);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
