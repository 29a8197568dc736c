import { describe, expect, it } from "vitest";
import { kafkaOptionsSchema, parseKafkaUrl, redactKafkaUrl } from "./options";

describe("parseKafkaUrl", () => {
  it("reads a broker list, the default port and TLS", () => {
    const p = parseKafkaUrl("kafkas://k1.example:9093,k2.example,[::1]:19092");
    expect(p).toEqual({
      ok: true,
      target: {
        brokers: ["k1.example:9093", "k2.example:9092", "[::1]:19092"],
        tls: true,
        sasl: null,
        display: "kafkas://k1.example:9093,k2.example:9092,[::1]:19092",
        secrets: ["kafkas://k1.example:9093,k2.example,[::1]:19092"],
      },
    });
  });

  it("takes SASL credentials from the userinfo, decoded, PLAIN unless a SCRAM mechanism is asked for", () => {
    const p = parseKafkaUrl("kafka://svc%40corp:p%3Ass@k1:9092?sasl=scram-sha-512");
    expect(p.ok && p.target.sasl).toEqual({ mechanism: "scram-sha-512", username: "svc@corp", password: "p:ss" });
    expect(p.ok && p.target.display).toBe("kafka://k1:9092");
    expect(p.ok && p.target.secrets).toContain("p:ss");
    const plain = parseKafkaUrl("kafka://u:pw@k1");
    expect(plain.ok && plain.target.sasl?.mechanism).toBe("plain");
  });

  it("refuses what cannot reach a broker, without repeating the password", () => {
    const cases: [string, RegExp][] = [
      ["amqp://k1:9092", /kafka:\/\/ or kafkas:\/\/ scheme/],
      ["kafka://k1:99999", /not host:port \("k1:99999"\)/],
      ["kafka://k1:9092,,k2", /not host:port \(""\)/],
      ["kafka://u:sekret@k1?sasl=gssapi", /SASL mechanism "gssapi"/],
      ["kafka://u:sekret@k1?tls=1", /unknown parameter "tls"/],
      ["kafka://u@k1", /both a user name and a password/],
      ["kafka://k1?sasl=plain", /no user:password@/],
      ["kafka://u:%zz@k1", /malformed %-escape/],
    ];
    for (const [url, message] of cases) {
      const p = parseKafkaUrl(url);
      expect(p.ok, url).toBe(false);
      if (!p.ok) {
        expect(p.message).toMatch(message);
        expect(p.message).not.toContain("sekret");
      }
    }
  });
});

describe("redactKafkaUrl", () => {
  it("hides the userinfo and keeps brokers and mechanism", () => {
    expect(redactKafkaUrl("kafka://u:pw@a:1,b:2?sasl=plain")).toBe("kafka://redacted@a:1,b:2?sasl=plain");
    expect(redactKafkaUrl("kafka://a:1")).toBe("kafka://a:1");
  });
});

describe("kafkaOptionsSchema", () => {
  it("names the rule a topic breaks and defaults the group", () => {
    expect(kafkaOptionsSchema.parse({ topic: "orders.DLT" })).toEqual({ topic: "orders.DLT", group: "redrive" });
    expect(kafkaOptionsSchema.safeParse({ topic: "a b" }).error?.issues[0]?.message).toMatch(/letters, digits/);
    expect(kafkaOptionsSchema.safeParse({ topic: ".." }).error?.issues[0]?.message).toMatch(/'\.\.'/);
    expect(kafkaOptionsSchema.safeParse({ topic: "t", group: "" }).error?.issues[0]?.path).toEqual(["group"]);
  });
});

describe("as a source body", () => {
  it("checks a Kafka source's URL and options with the rules the API applies, and shows the URL without its password", async () => {
    const { CreateSourceBody, displayUrl } = await import("../source-schemas");
    const ok = CreateSourceBody.safeParse({
      name: "orders-dlt",
      type: "kafka",
      url: "kafka://u:pw@a:1,b:2",
      kind: "afc",
      options: { topic: "orders.DLT" },
    });
    expect(ok.success && ok.data.options).toEqual({ topic: "orders.DLT", group: "redrive" });
    const bad = CreateSourceBody.safeParse({
      name: "x",
      type: "kafka",
      url: "redis://h",
      kind: "afc",
      options: { topic: "a b", queue: "q" },
    });
    expect(bad.error?.issues.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["options.topic", "options"]));
    expect(displayUrl("kafka://u:pw@a:1,b:2?sasl=scram-sha-512")).toBe("kafka://redacted@a:1,b:2?sasl=scram-sha-512");
    expect(displayUrl("redis://u:pw@h:6379/0")).toBe("redis://redacted@h:6379/0");
  });
});
