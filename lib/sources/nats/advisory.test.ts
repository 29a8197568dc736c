import { describe, expect, it } from "vitest";
import { deathReason, parseAckSubject, parseAdvisory } from "./advisory";

const enc = (v: unknown) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));

// As received from nats-server 2.9.10 (see tests/integration/sources/nats.test.ts).
const MAX_DELIVER = {
  type: "io.nats.jetstream.advisory.v1.max_deliver",
  id: "K5QE3QasyPKqY1yS3ZatA5",
  timestamp: "2026-12-01T15:06:25.718012226Z",
  stream: "EXP_tacbfz",
  consumer: "worker",
  stream_seq: 1,
  deliveries: 2,
};
const TERMINATED = {
  type: "io.nats.jetstream.advisory.v1.terminated",
  id: "K5QE3QasyPKqY1yS3Zat7U",
  timestamp: "2026-12-01T15:06:25.115259473Z",
  stream: "EXP_tacbfz",
  consumer: "worker",
  consumer_seq: 2,
  stream_seq: 2,
  deliveries: 1,
};

describe("parseAdvisory", () => {
  it("reads a max-deliveries advisory", () => {
    const r = parseAdvisory(enc(MAX_DELIVER));
    expect(r.ok && deathReason(r.advisory)).toBe("max_deliveries");
    expect(r.ok && r.advisory.stream_seq).toBe(1);
  });
  it("reads a terminated advisory", () => {
    const r = parseAdvisory(enc(TERMINATED));
    expect(r.ok && deathReason(r.advisory)).toBe("terminated");
    expect(r.ok && r.advisory.consumer_seq).toBe(2);
  });
  it("accepts fields newer servers add", () => {
    const r = parseAdvisory(enc({ ...TERMINATED, reason: "bad", domain: "hub", future: 1 }));
    expect(r.ok && r.advisory.reason).toBe("bad");
  });
  it.each([
    ["not JSON", "{", "not JSON"],
    ["not UTF-8", new Uint8Array([0xff, 0xfe]), "not JSON"],
    ["another advisory type", { ...MAX_DELIVER, type: "io.nats.jetstream.advisory.v1.consumer_action" }, "type"],
    ["no stream sequence", { ...MAX_DELIVER, stream_seq: undefined }, "stream_seq"],
    ["sequence zero", { ...MAX_DELIVER, stream_seq: 0 }, "stream_seq"],
    ["no stream", { ...MAX_DELIVER, stream: "" }, "stream"],
  ])("refuses %s, naming what is wrong", (_label, input, mention) => {
    const r = parseAdvisory(input instanceof Uint8Array ? input : enc(input));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toContain(mention);
  });
});

describe("parseAckSubject", () => {
  it("reads the v1 form", () => {
    expect(parseAckSubject("$JS.ACK.ADV_x.r.1.2.2.1796137585718429487.0")).toEqual({
      stream: "ADV_x",
      consumer: "r",
      deliveries: 1,
      streamSeq: 2,
    });
  });
  it("reads the v2 form with domain and account hash", () => {
    expect(parseAckSubject("$JS.ACK.hub.ACCHASH.ADV_x.r.3.17.9.1796137585718429487.0.rnd")).toEqual({
      stream: "ADV_x",
      consumer: "r",
      deliveries: 3,
      streamSeq: 17,
    });
  });
  it.each(["", "_INBOX.abc", "$JS.ACK.too.short", "$JS.ACK.s.c.x.y.1.2.3", "$JS.API.s.c.1.2.2.3.0"])("refuses %j", (s) => {
    expect(parseAckSubject(s)).toBeNull();
  });
});
