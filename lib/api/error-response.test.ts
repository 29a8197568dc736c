import { describe, expect, it, vi } from "vitest";
import { AppError } from "../errors/app-error";
import { SecretError } from "../secrets/kept-secret";
import { errorResponse } from "./handler";

describe("errorResponse", () => {
  it("answers a missing production secret with 503 naming the setting, not a bare 500", async () => {
    const res = errorResponse(new SecretError("REDRIVE_SECRET_KEY is not set. Production needs a stable secret"), "req-1");
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("misconfigured");
    expect(body.error.message).toContain("REDRIVE_SECRET_KEY");
  });

  it("keeps an AppError's status and hides anything else behind a 500", async () => {
    expect(errorResponse(new AppError("conflict", "stale version"), "req-2").status).toBe(409);
    const res = errorResponse(new Error("connection string with password"), "req-3");
    expect(res.status).toBe(500);
    expect(JSON.stringify(await res.json())).not.toContain("password");
  });

  it("masks a card number an error quotes, in its message and its issues, as every other answer is masked", async () => {
    const err = new AppError("validation_failed", "payload.4111111111111111: holds a masked value", {
      issues: [{ path: "payload.4111111111111111", message: "card 4111111111111111 is shown masked" }],
    });
    const text = JSON.stringify(await errorResponse(err, "req-6").json());
    expect(text).not.toContain("4111111111111111");
    expect(text).toContain("1111");
  });

  it("answers a request its client cut off with 400 and a line in the log, not an unhandled error", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const res = errorResponse(Object.assign(new Error("aborted"), { code: "ECONNRESET" }), "req-4");
      expect(res.status).toBe(400);
      expect(error).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledWith("[api] req-4 the client closed the connection before its request was read");
      // Another ECONNRESET (a database connection reset) stays an unhandled error.
      expect(errorResponse(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), "req-5").status).toBe(500);
      expect(error).toHaveBeenCalledTimes(1);
    } finally {
      error.mockRestore();
      warn.mockRestore();
    }
  });
});
