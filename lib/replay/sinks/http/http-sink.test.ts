import { afterEach, describe, expect, it, vi } from "vitest";
import { idempotencyHeader, requestSignal } from "./http-sink";

describe("idempotencyHeader", () => {
  it("sends the key's UTF-8 bytes, so any printable key arrives verbatim", () => {
    for (const key of ["abc-123", "Mixed CASE/key:x=1", "clé-ü-€", "地図-🗺️"]) {
      const h = idempotencyHeader(key);
      if (!("value" in h)) throw new Error(h.problem);
      expect([...h.value].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true); // a byte string, as fetch needs
      expect(Buffer.from(h.value, "latin1").toString("utf8")).toBe(key);
    }
  });

  it("names what a header cannot carry: control characters, white space at either end", () => {
    expect(idempotencyHeader("a\nb")).toEqual({
      problem: "the idempotency key cannot be sent in an HTTP header: control character U+000A at character 1",
    });
    expect(idempotencyHeader("🗺️x\u007f")).toMatchObject({ problem: expect.stringContaining("U+007F at character 3") });
    expect(idempotencyHeader(" key")).toMatchObject({ problem: expect.stringContaining("white space") });
    expect(idempotencyHeader("key\t")).toMatchObject({ problem: expect.stringContaining("white space") });
    expect(idempotencyHeader("a\tb")).toEqual({ value: "a\tb" });
  });
});

describe("requestSignal", () => {
  afterEach(() => vi.useRealTimers());

  it("aborts after the timeout with a TimeoutError, as AbortSignal.timeout does (classifyHttpError reads its name)", () => {
    vi.useFakeTimers();
    const { signal } = requestSignal(new AbortController().signal, 1_000);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe("TimeoutError");
  });

  it("aborts when the worker stops, with the stop's reason; at once when it has stopped already", () => {
    const stop = new AbortController();
    const { signal, done } = requestSignal(stop.signal, 60_000);
    stop.abort(new Error("stopping"));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("stopping");
    done();
    expect(requestSignal(stop.signal, 60_000).signal.aborted).toBe(true);
  });

  it("once done, neither the timer nor a later stop touches it", () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const { signal, done } = requestSignal(stop.signal, 1_000);
    done();
    expect(vi.getTimerCount()).toBe(0);
    stop.abort();
    vi.advanceTimersByTime(5_000);
    expect(signal.aborted).toBe(false);
  });
});
