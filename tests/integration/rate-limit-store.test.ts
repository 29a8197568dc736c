import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { postgresRateLimitStore, pruneRateLimits } from "../../lib/auth/rate-limit-store";
import { admitThrottleAudit } from "../../lib/auth/throttle-audit";
import { testDb } from "./helpers";

// Two pools stand for two servers on one database: each has its own connections and its own store object, as
// each Redrive process has; only the database is shared.
describe("the sign-in limiter's store in PostgreSQL", () => {
  let db: Db;
  let second: pg.Pool;

  beforeAll(async () => {
    db = await testDb();
    second = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 8 });
  });
  afterAll(async () => {
    await second.end();
    await db.pool.end();
    await closeDb();
  });

  it("counts attempts made through any server against one limit, concurrent ones included", async () => {
    const a = postgresRateLimitStore(db.pool);
    const b = postgresRateLimitStore(second);
    const rule = { window: 60, max: 20 };
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).consume("203.0.113.7|/sign-in/email", rule)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    for (const refused of decisions.filter((d) => !d.allowed)) {
      expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfter).toBeLessThanOrEqual(60);
    }
    // Another address and another path have counts of their own.
    expect((await a.consume("203.0.113.8|/sign-in/email", rule)).allowed).toBe(true);
    expect((await b.consume("203.0.113.7|/sign-out", rule)).allowed).toBe(true);
  });

  it("admits one audit of a throttled address per window across every server", async () => {
    const ip = "203.0.113.99";
    const admitted = await Promise.all(Array.from({ length: 10 }, (_, i) => admitThrottleAudit(i % 2 ? db.pool : second, ip)));
    expect(admitted.filter(Boolean)).toHaveLength(1);
    expect(await admitThrottleAudit(second, "203.0.113.98")).toBe(true); // another address has its own
    // The limiter's count for the address's sign-ins is not touched.
    const { rows } = await db.pool.query(`SELECT key FROM auth_rate_limit WHERE key LIKE $1`, [`${ip}%`]);
    expect(rows).toEqual([]);
  });

  it("opens a new window once the last one has ended, and prunes ended windows", async () => {
    const store = postgresRateLimitStore(db.pool);
    const rule = { window: 1, max: 2 };
    const key = "198.51.100.1|/sign-in/email";
    expect((await store.consume(key, rule)).allowed).toBe(true);
    expect((await store.consume(key, rule)).allowed).toBe(true);
    expect(await store.consume(key, rule)).toEqual({ allowed: false, retryAfter: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await store.consume(key, rule)).allowed).toBe(true);
    await db.pool.query(`UPDATE auth_rate_limit SET window_start = window_start - interval '2 hours' WHERE key = $1`, [key]);
    expect(await pruneRateLimits(db.pool)).toBe(1);
    const { rows } = await db.pool.query(`SELECT key FROM auth_rate_limit WHERE key = $1`, [key]);
    expect(rows).toEqual([]);
  });
});
