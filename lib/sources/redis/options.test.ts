import { describe, expect, it } from "vitest";
import { parseRedisUrl, redisOptionsSchema, redisUrlSchema } from "./options";

describe("redisOptionsSchema", () => {
  it("applies the defaults", () => {
    expect(redisOptionsSchema.parse({ stream: "orders", group: "workers" })).toEqual({
      stream: "orders",
      group: "workers",
      minIdleMs: 60_000,
      maxDeliveries: 3,
      consumer: "redrive",
      dlqGroup: "redrive",
      field: "body",
      gatePrefix: "redrive:gate:",
    });
  });

  it("names the field and the rule", () => {
    const r = redisOptionsSchema.safeParse({ stream: "", group: "g", minIdleMs: -1, maxDeliveries: 1.5, extra: 1 });
    expect(r.success).toBe(false);
    const issues = r.error?.issues.map((i) => `${i.path.join(".") || i.code}: ${i.message}`) ?? [];
    expect(issues).toEqual(
      expect.arrayContaining(["stream: must not be empty", "minIdleMs: must be 0 or more", "maxDeliveries: must be a whole number"]),
    );
    expect(r.error?.issues.some((i) => i.code === "unrecognized_keys")).toBe(true);
  });

  it("refuses a dead-letter stream that is the application's stream", () => {
    const r = redisOptionsSchema.safeParse({ stream: "orders", group: "g", dlqStream: "orders" });
    expect(r.error?.issues[0]?.path).toEqual(["dlqStream"]);
  });
});

describe("parseRedisUrl", () => {
  it("accepts redis:// and rediss:// and describes the target without credentials", () => {
    const r = parseRedisUrl("rediss://app:p%40ss@cache.example:6380/2");
    expect(r).toEqual({
      ok: true,
      target: {
        display: "rediss://cache.example:6380/2",
        tls: true,
        secrets: ["p%40ss", "p@ss", "rediss://app:p%40ss@cache.example:6380/2"],
      },
    });
    expect(parseRedisUrl("redis://127.0.0.1")).toMatchObject({ ok: true, target: { display: "redis://127.0.0.1:6379/0", tls: false } });
  });

  it("says what is wrong without repeating the password", () => {
    const cases: Array<[string, RegExp]> = [
      ["http://u:hunter2@host:6379", /redis:\/\/ or rediss:\/\/ scheme, not http:/],
      ["not a url hunter2", /not a valid URL/],
      ["redis://u:hunter2@host/abc", /not a database number/],
      ["redis://u:hunter2@host/0?password=hunter2", /query parameters/],
      ["redis://u:hunter2%zz@host", /malformed %-escape/],
    ];
    for (const [url, expected] of cases) {
      const r = parseRedisUrl(url);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.message).toMatch(expected);
        expect(r.message).not.toContain("hunter2");
      }
    }
  });

  it("is available as a zod string", () => {
    expect(redisUrlSchema.safeParse("amqp://x").error?.issues[0]?.message).toMatch(/redis:\/\//);
    expect(redisUrlSchema.safeParse("redis://x").success).toBe(true);
  });
});
