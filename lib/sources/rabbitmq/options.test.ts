import { describe, expect, it } from "vitest";
import { parseRabbitmqUrl, rabbitmqOptionsSchema } from "./options";

describe("rabbitmqOptionsSchema", () => {
  it("accepts a queue name and nothing else", () => {
    expect(rabbitmqOptionsSchema.parse({ queue: "orders.dlq" })).toEqual({ queue: "orders.dlq" });
    expect(rabbitmqOptionsSchema.safeParse({ queue: "q", prefetch: 10 }).success).toBe(false);
  });

  it("explains a missing, blank-edged or too long name", () => {
    const issue = (v: unknown) => rabbitmqOptionsSchema.safeParse(v).error?.issues[0]?.message;
    expect(issue({})).toBe("must be the name of the dead-letter queue");
    expect(issue({ queue: "" })).toBe("must be the name of the dead-letter queue");
    expect(issue({ queue: " q" })).toMatch(/white space/);
    expect(issue({ queue: "é".repeat(128) })).toMatch(/at most 255 bytes/);
    expect(rabbitmqOptionsSchema.safeParse({ queue: "é".repeat(127) }).success).toBe(true);
  });
});

describe("parseRabbitmqUrl", () => {
  it("reads host, port, virtual host and user; the display form hides the password", () => {
    const r = parseRabbitmqUrl("amqps://ops:s%40cret@mq.example.com/prod%2Fa");
    expect(r).toEqual({
      ok: true,
      url: {
        protocol: "amqps",
        hostname: "mq.example.com",
        port: 5671,
        vhost: "prod/a",
        username: "ops",
        display: "amqps://ops:***@mq.example.com/prod%2Fa",
      },
    });
  });

  it("defaults the port and the virtual host as amqplib does", () => {
    const r = parseRabbitmqUrl("amqp://guest:guest@127.0.0.1");
    expect(r.ok && r.url).toMatchObject({ port: 5672, vhost: "/", username: "guest" });
    const slash = parseRabbitmqUrl("amqp://h:5673/%2F");
    expect(slash.ok && slash.url).toMatchObject({ port: 5673, vhost: "/", username: null });
  });

  it("names what is wrong without repeating the password", () => {
    const cases: [string, RegExp][] = [
      ["http://u:hunter2@h/", /must start with amqp:\/\/ or amqps:\/\/ \(got http:\/\/\)/],
      ["amqp://u:hunter2@h/a/b", /more than one path segment/],
      ["not a url hunter2", /is not a URL/],
      ["amqp://u:hunter2@h/%E0%A4%A", /percent-encoding/],
    ];
    for (const [url, message] of cases) {
      const r = parseRabbitmqUrl(url);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.message).toMatch(message);
      expect(r.message).not.toContain("hunter2");
    }
  });
});
