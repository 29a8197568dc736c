import { describe, expect, it } from "vitest";
import { readiness, type Health } from "./health";

const healthy: Health = {
  status: "ok",
  database: { ok: true, latencyMs: 1, version: "15.19", embedded: false },
  migrations: { applied: 40, pending: [], failed: [] },
};

describe("readiness", () => {
  it("is ready with the database up, this code's migrations applied and no stop under way", () => {
    expect(readiness(healthy, false)).toEqual({ ready: true, reasons: [] });
  });

  it("is not ready while stopping, whatever the database says", () => {
    expect(readiness(healthy, true)).toEqual({ ready: false, reasons: ["draining"] });
  });

  it("is not ready when the database lacks a migration this code expects, or one failed", () => {
    const behind: Health = { ...healthy, status: "degraded", migrations: { applied: 39, pending: ["20261206_x"], failed: [] } };
    expect(readiness(behind, false)).toEqual({ ready: false, reasons: ["migrations pending: 20261206_x"] });
    const failed: Health = { ...healthy, status: "degraded", migrations: { applied: 39, pending: [], failed: ["20261206_y"] } };
    expect(readiness(failed, false).reasons).toEqual(["migrations failed: 20261206_y"]);
  });

  it("names a migration being applied (a backfill under way) apart from ones not started", () => {
    const busy: Health = {
      ...healthy,
      status: "degraded",
      migrations: { applied: 39, pending: ["20261207_a", "20261207_b"], failed: [], running: ["20261207_a"] },
    };
    expect(readiness(busy, false).reasons).toEqual(["migrations pending: 20261207_b", "migrations being applied: 20261207_a"]);
  });

  it("is not ready when the database does not answer", () => {
    const down: Health = {
      status: "down",
      database: { ok: false, latencyMs: null, version: null, embedded: false, error: "database unreachable" },
      migrations: null,
    };
    expect(readiness(down, false)).toEqual({ ready: false, reasons: ["database unreachable"] });
  });
});
