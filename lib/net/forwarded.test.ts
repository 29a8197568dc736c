import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { parseTrustedProxies, plainAddress, sanitizeForwarding } from "./forwarded";

const none = parseTrustedProxies(undefined).list;

describe("sanitizeForwarding", () => {
  it("replaces what a direct client claims with the socket's address", () => {
    const h: IncomingHttpHeaders = {
      "x-forwarded-for": "10.9.1.1",
      "x-forwarded-host": "evil.example",
      "x-forwarded-proto": "https",
      forwarded: "for=1.2.3.4",
      "x-real-ip": "1.2.3.4",
      host: "app:3000",
    };
    expect(sanitizeForwarding(h, "::ffff:203.0.113.7", none)).toBe(true); // dropped: worth a warning
    expect(h).toEqual({ "x-forwarded-for": "203.0.113.7", host: "app:3000" });
    expect(sanitizeForwarding({ host: "app:3000" }, "203.0.113.7", none)).toBe(false); // nothing to drop
  });

  it("keeps a trusted proxy's headers and appends the proxy, so the client is the last untrusted hop", () => {
    const { list } = parseTrustedProxies("10.0.0.0/8, fd00::1");
    const h: IncomingHttpHeaders = { "x-forwarded-for": "198.51.100.4", "x-forwarded-proto": "https" };
    expect(sanitizeForwarding(h, "10.2.3.4", list)).toBe(false);
    expect(h).toEqual({ "x-forwarded-for": "198.51.100.4, 10.2.3.4", "x-forwarded-proto": "https" });
    const v6: IncomingHttpHeaders = {};
    sanitizeForwarding(v6, "fd00::1", list);
    expect(v6).toEqual({ "x-forwarded-for": "fd00::1" });
    const outside: IncomingHttpHeaders = { "x-forwarded-for": "198.51.100.4" };
    sanitizeForwarding(outside, "192.0.2.9", list);
    expect(outside).toEqual({ "x-forwarded-for": "192.0.2.9" });
  });

  it("drops the headers when the socket has no address", () => {
    const h: IncomingHttpHeaders = { "x-forwarded-for": "10.9.1.1" };
    sanitizeForwarding(h, undefined, none);
    expect(h).toEqual({});
  });
});

describe("parseTrustedProxies", () => {
  it("takes addresses and CIDR blocks, IPv4 and IPv6", () => {
    expect(parseTrustedProxies(" 127.0.0.1 ,10.0.0.0/8,::1, fd00::/8 ").entries).toEqual(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]);
    expect(parseTrustedProxies("").entries).toEqual([]);
  });

  it("names an entry it cannot read", () => {
    expect(() => parseTrustedProxies("10.0.0.1, proxy.local")).toThrow('"proxy.local" is not an IP address or CIDR block');
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow('"10.0.0.0/33"');
    expect(() => parseTrustedProxies("10.0.0.0/x")).toThrow('"10.0.0.0/x"');
  });
});

describe("plainAddress", () => {
  it("unwraps IPv4-mapped IPv6", () => {
    expect(plainAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(plainAddress("::1")).toBe("::1");
  });
});
