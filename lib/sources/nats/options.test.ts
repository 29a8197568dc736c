import { describe, expect, it } from "vitest";
import { natsOptionsSchema, parseNatsUrl } from "./options";

describe("natsOptionsSchema", () => {
  it("applies the ack wait default", () => {
    expect(natsOptionsSchema.parse({ stream: "ORDERS" })).toEqual({ stream: "ORDERS", ackWaitMs: 30_000 });
  });
  it("keeps a consumer", () => {
    expect(natsOptionsSchema.parse({ stream: "ORDERS", consumer: "billing-v2", ackWaitMs: 1000 })).toEqual({
      stream: "ORDERS",
      consumer: "billing-v2",
      ackWaitMs: 1000,
    });
  });
  it.each([
    [{}, "stream", "string"],
    [{ stream: "" }, "stream", "must not be empty"],
    [{ stream: "orders.dlq" }, "stream", "JetStream name"],
    [{ stream: "a b" }, "stream", "JetStream name"],
    [{ stream: "a>" }, "stream", "JetStream name"],
    [{ stream: "a/b" }, "stream", "JetStream name"],
    [{ stream: "S", consumer: "c*" }, "consumer", "JetStream name"],
    [{ stream: "S", ackWaitMs: 50 }, "ackWaitMs", "at least 100 ms"],
    [{ stream: "S", ackWaitMs: 1.5 }, "ackWaitMs", "whole number"],
    [{ stream: "S", extra: true }, "", "extra"],
  ])("refuses %j, naming the field", (input, field, words) => {
    const r = natsOptionsSchema.safeParse(input);
    expect(r.success).toBe(false);
    const issue = r.error?.issues[0];
    expect(issue?.path.join(".")).toBe(field);
    expect(JSON.stringify(issue)).toContain(words);
  });
});

describe("parseNatsUrl", () => {
  it("reads host and port, defaulting to 4222", () => {
    expect(parseNatsUrl("nats://127.0.0.1")).toEqual({
      ok: true,
      address: { server: "127.0.0.1:4222", tls: false, auth: { kind: "none" }, display: "nats://127.0.0.1:4222" },
    });
    expect(parseNatsUrl("nats://broker.internal:4333/").ok && parseNatsUrl("nats://broker.internal:4333/")).toMatchObject({
      address: { server: "broker.internal:4333" },
    });
  });
  it("reads a user and password, percent-decoded, outside the server string", () => {
    const r = parseNatsUrl("nats://app:p%40ss%3Aword@10.0.0.5:4222");
    expect(r).toEqual({
      ok: true,
      address: {
        server: "10.0.0.5:4222",
        tls: false,
        auth: { kind: "user", user: "app", pass: "p@ss:word" },
        display: "nats://10.0.0.5:4222",
      },
    });
  });
  it("reads a lone userinfo as a token", () => {
    expect(parseNatsUrl("nats://s3cr3t@localhost").ok && parseNatsUrl("nats://s3cr3t@localhost")).toMatchObject({
      address: { auth: { kind: "token", token: "s3cr3t" } },
    });
  });
  it("asks for TLS with tls://", () => {
    expect(parseNatsUrl("tls://nats.example.com:4443")).toMatchObject({
      ok: true,
      address: { tls: true, server: "nats.example.com:4443" },
    });
  });
  it("keeps IPv6 hosts bracketed", () => {
    expect(parseNatsUrl("nats://[::1]:4222")).toMatchObject({ ok: true, address: { server: "[::1]:4222" } });
  });
  it.each([
    ["amqp://guest:hunter2@localhost:5672", "scheme must be nats:// or tls://"],
    ["http://u:hunter2@localhost", "not http://"],
    ["not a url hunter2", "cannot be parsed"],
    ["nats://u:hunter2@localhost:4222/vhost", "must not have a path"],
    ["nats://u:hunter2@localhost:4222?password=hunter2", "must not have a query"],
    ["nats://:hunter2@localhost", "password but no user"],
    ["nats://u:%E0%A4%A@localhost", "percent-encoding"],
    ["nats://u:hunter2@localhost:99999", "cannot be parsed"],
  ])("refuses %s without echoing the password", (url, words) => {
    const r = parseNatsUrl(url);
    expect(r.ok).toBe(false);
    const message = r.ok ? "" : r.message;
    expect(message).toContain(words);
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("%E0");
  });
});
