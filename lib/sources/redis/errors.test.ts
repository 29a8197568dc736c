import { ClientOfflineError, ErrorReply, ReconnectStrategyError, SocketClosedUnexpectedlyError } from "redis";
import { describe, expect, it } from "vitest";
import { isRetryable, RedisSourceError, scrub, sourceError } from "./errors";

const target = { display: "redis://cache:6379/0", tls: false, secrets: ["s%40cret", "s@cret", "redis://u:s%40cret@cache"] };

describe("sourceError", () => {
  it("says what was being done, where, and what Redis said, with the password scrubbed", () => {
    const e = sourceError(new Error("connect failed for redis://u:s%40cret@cache (s@cret)"), target, "connecting");
    expect(e).toBeInstanceOf(RedisSourceError);
    expect(e.message).toBe("connecting on redis://cache:6379/0 failed: connect failed for *** (***)");
  });

  it("classifies refused credentials, missing groups, lost connections and other replies", () => {
    expect(sourceError(new ErrorReply("WRONGPASS invalid username-password pair"), target, "x").code).toBe("auth_failed");
    expect(sourceError(new ErrorReply("NOGROUP No such key"), target, "x").code).toBe("not_found");
    expect(sourceError(new SocketClosedUnexpectedlyError(), target, "x").code).toBe("unreachable");
    expect(sourceError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), target, "x").code).toBe("unreachable");
    expect(sourceError(new ErrorReply("WRONGTYPE Operation against a key"), target, "x").code).toBe("broker");
  });

  it("looks inside the error a reconnect strategy gave up on", () => {
    const refused = new ErrorReply("WRONGPASS invalid username-password pair");
    expect(sourceError(new ReconnectStrategyError(refused, refused), target, "connecting")).toMatchObject({
      code: "auth_failed",
      message:
        "connecting on redis://cache:6379/0 failed: WRONGPASS invalid username-password pair (check the user name and password in the source URL)",
    });
  });

  it("passes its own errors through", () => {
    const own = new RedisSourceError("pending", "held");
    expect(sourceError(own, target, "x")).toBe(own);
  });
});

describe("isRetryable", () => {
  it("retries a lost connection or a busy server, not a refusal", () => {
    expect(isRetryable(new ClientOfflineError())).toBe(true);
    expect(isRetryable(new ErrorReply("LOADING Redis is loading the dataset in memory"))).toBe(true);
    expect(isRetryable(new ErrorReply("NOPERM this user has no permissions"))).toBe(false);
    expect(isRetryable(new ErrorReply("WRONGTYPE Operation against a key"))).toBe(false);
  });
});

describe("scrub", () => {
  it("replaces the longest secret first", () => {
    expect(scrub("redis://u:pw@h and pw", ["pw", "redis://u:pw@h"])).toBe("*** and ***");
  });
});
