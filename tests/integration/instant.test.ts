import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../lib/db/client";
import { isUtcMicrosText, utcMicrosSql } from "../../lib/time/instant";
import { testDb } from "./helpers";

// What utcMicrosSql makes PostgreSQL write, whatever the session's time zone: the texts the list cursor and the
// replay engine send back into queries.

let db: Db;
beforeAll(async () => {
  db = await testDb();
});
afterAll(async () => {
  await db.pool.end();
});

describe("utcMicrosSql", () => {
  it("writes UTC with six fraction digits and four-digit years, in any session time zone, and reads back the same instant", async () => {
    const client = await db.pool.connect();
    try {
      await client.query("SET TIME ZONE 'America/St_Johns'"); // −03:30 / −02:30: a zone that would show
      const inputs = [
        "2024-01-01T00:00:00.123456Z",
        "0005-03-01T12:00:00.000001+00:00",
        "9999-12-31T23:59:59.999999Z",
        "2024-06-01T10:00:00.5-02:00",
      ];
      const { rows } = await client.query<{ t: string; same: boolean }>(
        `SELECT ${utcMicrosSql("v")} AS t, (${utcMicrosSql("v")})::timestamptz = v AS same FROM unnest($1::timestamptz[]) AS v`,
        [inputs],
      );
      expect(rows.map((r) => r.t)).toEqual([
        "2024-01-01T00:00:00.123456Z",
        "0005-03-01T12:00:00.000001Z",
        "9999-12-31T23:59:59.999999Z",
        "2024-06-01T12:00:00.500000Z",
      ]);
      expect(rows.every((r) => r.same && isUtcMicrosText(r.t))).toBe(true);
      // fixed width: the texts order as the instants do
      const ordered = await client.query<{ t: string }>(`SELECT ${utcMicrosSql("v")} AS t FROM unnest($1::timestamptz[]) AS v ORDER BY v`, [
        inputs,
      ]);
      expect(ordered.rows.map((r) => r.t)).toEqual(rows.map((r) => r.t).sort());
    } finally {
      client.release();
    }
  });
});
