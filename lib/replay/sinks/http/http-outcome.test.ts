import { describe, expect, it } from "vitest";
import { classifyHttpAnswer, classifyHttpError } from "./http-outcome";

const now = new Date("2026-11-29T12:00:00Z");
const answer = (status: number, headers: Record<string, string> = {}, body = "") => ({
  status,
  headers: new Headers(headers),
  bodySnippet: body,
});

describe("HTTP sink outcome mapping", () => {
  it.each([200, 201, 202, 204])("%i → applied", (s) => {
    expect(classifyHttpAnswer(answer(s), now)).toEqual({ outcome: "applied" });
  });

  it("2xx with Idempotent-Replayed: true → deduped", () => {
    expect(classifyHttpAnswer(answer(200, { "Idempotent-Replayed": "true" }), now)).toEqual({ outcome: "deduped" });
    expect(classifyHttpAnswer(answer(200, { "Idempotent-Replayed": "false" }), now)).toEqual({ outcome: "applied" });
  });

  it("409 → deduped", () => {
    expect(classifyHttpAnswer(answer(409), now)).toEqual({ outcome: "deduped" });
  });

  it.each([
    [408, false],
    [429, true],
    [500, false],
    [502, false],
    [503, true],
    [504, false],
  ])("%i → retry (slow down: %s)", (status, slowDown) => {
    const r = classifyHttpAnswer(answer(status, {}, "busy"), now);
    expect(r).toMatchObject({ outcome: "retry", slowDown, retryAfterMs: null, reason: `HTTP ${status}: busy` });
  });

  it("honours Retry-After", () => {
    expect(classifyHttpAnswer(answer(429, { "Retry-After": "2" }), now)).toMatchObject({ outcome: "retry", retryAfterMs: 2000 });
    expect(classifyHttpAnswer(answer(503, { "Retry-After": "Sun, 29 Nov 2026 12:00:05 GMT" }), now)).toMatchObject({ retryAfterMs: 5000 });
  });

  it.each([400, 401, 403, 404, 410, 413, 422, 301, 302])("%i → failed, with the body in the reason", (status) => {
    expect(classifyHttpAnswer(answer(status, {}, '{"error":"bad geometry"}'), now)).toEqual({
      outcome: "failed",
      reason: `HTTP ${status}: {"error":"bad geometry"}`,
    });
  });

  it("timeouts and connection errors → retry", () => {
    const timeout = Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" });
    expect(classifyHttpError(timeout, 1500)).toMatchObject({ outcome: "retry", reason: "timed out after 1500 ms", slowDown: false });
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    expect(classifyHttpError(refused, 1500)).toMatchObject({ outcome: "retry", reason: "request failed: ECONNREFUSED" });
  });

  it("undici request's errors carry their code on the error itself", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    expect(classifyHttpError(refused, 1500)).toMatchObject({ outcome: "retry", reason: "request failed: ECONNREFUSED" });
    const why = "refused: 10.0.0.1 is a private address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=10.0.0.1";
    const outbound = Object.assign(new Error(why), { name: "OutboundRefusedError", code: "ERR_OUTBOUND_REFUSED" });
    expect(classifyHttpError(outbound, 1500)).toEqual({ outcome: "failed", reason: why });
    const timeout = new DOMException("The operation was aborted due to timeout", "TimeoutError");
    expect(classifyHttpError(timeout, 1500)).toMatchObject({ outcome: "retry", reason: "timed out after 1500 ms" });
  });

  it("a connection the outbound rule refused → failed, saying why and what allows it", () => {
    const why = "refused: 127.0.0.1 is a loopback address; an admin may allow it with REDRIVE_OUTBOUND_ALLOW_PRIVATE=127.0.0.1";
    const err = Object.assign(new TypeError("fetch failed"), { cause: { code: "ERR_OUTBOUND_REFUSED", message: why } });
    expect(classifyHttpError(err, 1500)).toEqual({ outcome: "failed", reason: why });
  });
});
