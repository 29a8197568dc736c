import { describe, expect, it } from "vitest";
import { classifyTargetError } from "./target-errors";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("classifyTargetError", () => {
  it("retries what may pass: connections, deadlocks, a server shutting down, too many connections", () => {
    for (const err of [
      pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      pgError("40P01", "deadlock detected"),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("53300", "sorry, too many clients already"),
      new Error("Connection terminated unexpectedly"),
    ]) {
      expect(classifyTargetError(err, "PostGIS x").outcome, err.message).toBe("retry");
    }
  });

  it("fails (with the target's words and SQLSTATE) what is the target's configuration", () => {
    const r = classifyTargetError(pgError("42P01", 'relation "gis.features" does not exist'), "PostGIS db gis.features");
    expect(r).toEqual({ outcome: "failed", reason: 'PostGIS db gis.features: relation "gis.features" does not exist [SQLSTATE 42P01]' });
    expect(classifyTargetError(pgError("42501", "permission denied for table features"), "x").outcome).toBe("failed");
    expect(classifyTargetError(pgError("22023", "Geometry type (MultiPolygon) does not match column type (Polygon)"), "x").outcome).toBe(
      "failed",
    );
  });
});
