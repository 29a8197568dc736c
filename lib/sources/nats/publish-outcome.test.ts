import { JetStreamApiError } from "@nats-io/jetstream";
import { NoRespondersError, RequestError, TimeoutError, ClosedConnectionError, PermissionViolationError } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { publishAcked, publishFailed } from "./publish-outcome";

const WHERE = "nats://127.0.0.1:4222";
const apiError = (code: number, err_code: number, description: string) => new JetStreamApiError({ code, err_code, description });

describe("publishAcked", () => {
  it("is applied for a new message and deduped for a duplicate", () => {
    expect(publishAcked({ stream: "S", seq: 3, duplicate: false })).toEqual({ outcome: "applied" });
    expect(publishAcked({ stream: "S", seq: 3, duplicate: true })).toEqual({ outcome: "deduped" });
  });
});

describe("publishFailed", () => {
  it("calls no responders a missing stream, worth retrying", () => {
    // What js.publish throws: "jetstream is not enabled" with the RequestError as its cause.
    const cause = new RequestError("no responders", { cause: new NoRespondersError("orders.created") });
    const err = Object.assign(new Error("jetstream is not enabled", { cause }), { name: "JetStreamNotEnabled" });
    const r = publishFailed(err, "orders.created", "ORDERS", WHERE);
    expect(r).toEqual({
      outcome: "failed",
      error: expect.stringContaining("no JetStream stream captures subject orders.created"),
      retryable: true,
    });
  });
  it("retries a timeout", () => {
    expect(publishFailed(new TimeoutError(), "s", "S", WHERE)).toMatchObject({
      outcome: "failed",
      retryable: true,
      error: expect.stringContaining("did not answer"),
    });
  });
  it("retries a closed connection", () => {
    expect(publishFailed(new ClosedConnectionError(), "s", "S", WHERE)).toMatchObject({ retryable: true });
  });
  it("does not retry a stream mismatch and says why", () => {
    const r = publishFailed(apiError(400, 10060, "expected stream does not match"), "orders.created", "ORDERS", WHERE);
    expect(r).toMatchObject({ retryable: false, error: expect.stringContaining("now lands in another stream than ORDERS") });
  });
  it("retries a full stream", () => {
    expect(publishFailed(apiError(503, 10077, "maximum messages exceeded"), "s", "S", WHERE)).toMatchObject({ retryable: true });
  });
  it("does not retry a message the stream will never take", () => {
    expect(publishFailed(apiError(400, 10054, "message size exceeds maximum allowed"), "s", "S", WHERE)).toMatchObject({
      retryable: false,
    });
  });
  it("does not retry a permission the user lacks", () => {
    const err = new PermissionViolationError('Permissions Violation for Publish to "s"', "publish", "s");
    expect(publishFailed(err, "s", "S", WHERE)).toMatchObject({ retryable: false });
  });
});
