import { describe, expect, it } from "vitest";
import { outboundAllowed } from "./outbound";

describe("outbound host allow-list", () => {
  it("allows everything when unset, and only the listed hosts (subdomains by *., ports when given) when set", () => {
    expect(outboundAllowed("http://169.254.169.254/latest", undefined)).toBe(true);
    const list = "sink.example.com, *.hooks.example.org, 10.0.0.5:8443";
    expect(outboundAllowed("https://sink.example.com/ingest", list)).toBe(true);
    expect(outboundAllowed("https://a.hooks.example.org/x", list)).toBe(true);
    expect(outboundAllowed("https://hooks.example.org/x", list)).toBe(false);
    expect(outboundAllowed("https://10.0.0.5:8443/", list)).toBe(true);
    expect(outboundAllowed("http://10.0.0.5/", list)).toBe(false);
    expect(outboundAllowed("http://169.254.169.254/latest", list)).toBe(false);
    expect(outboundAllowed("http://sink.example.com.evil.net/", list)).toBe(false);
    expect(outboundAllowed("http://127.0.0.1:3000/", list)).toBe(false);
  });
});
