import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetch } from "undici";
import { parseAddressList } from "./address-list";
import { guardedLookup, outboundAgent, refusal, refusedBy, type OutboundPolicy } from "./outbound-guard";

const policy = (spec?: string): OutboundPolicy => ({ allowed: parseAddressList(spec).list });

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end("secret from the inside");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("outbound connections of sinks and webhooks", () => {
  it("say why an address is refused and which setting allows it", () => {
    expect(refusal("127.0.0.1", "127.0.0.1", policy())).toBe(
      "refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1",
    );
    expect(refusal("metadata.internal", "169.254.169.254", policy())).toBe(
      "refused: metadata.internal resolves to 169.254.169.254, a link-local address (cloud metadata services answer there); " +
        "an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=169.254.169.254",
    );
    expect(refusal("[::ffff:7f00:1]", "::ffff:7f00:1", policy())).toMatch(/^refused: ::ffff:7f00:1 is a loopback address .*=127\.0\.0\.1$/);
    expect(refusal("sink.example", "93.184.215.14", policy())).toBeNull();
    // allowed by address or by block, also in its IPv4-in-IPv6 spelling; another private address stays refused
    expect(refusal("127.0.0.1", "127.0.0.1", policy("127.0.0.1"))).toBeNull();
    expect(refusal("x", "::ffff:10.1.2.3", policy("10.1.0.0/16"))).toBeNull();
    expect(refusal("x", "10.2.0.1", policy("10.1.0.0/16"))).toMatch(/^refused: x resolves to 10\.2\.0\.1/);
  });

  it("refuses loopback by default at connect time, by address literal and by a name resolving to it, without sending", async () => {
    const agent = outboundAgent(policy());
    for (const host of ["127.0.0.1", "localhost"]) {
      const err = await fetch(`http://${host}:${port}/`, { dispatcher: agent }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refusedBy(err)?.message).toMatch(/^refused: .*loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=/);
    }
    expect(hits).toBe(0);
  });

  it("connects where an admin allowed the address", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`, { dispatcher: outboundAgent(policy("127.0.0.1,::1")) });
    expect(await res.text()).toBe("secret from the inside");
  });

  it("checks every address a name resolves to, in the shape net.connect asked for", async () => {
    const lookup = guardedLookup(policy("127.0.0.0/8,::1"));
    const all = await new Promise((resolve, reject) =>
      lookup("localhost", { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
    );
    expect(Array.isArray(all) && all.length > 0).toBe(true);
    const refused = await new Promise<Error | null>((resolve) => guardedLookup(policy())("localhost", {}, (err) => resolve(err)));
    expect(refused?.name).toBe("OutboundRefusedError");
  });
});
