import { describe, expect, it } from "vitest";
import { replyText, scrub } from "./errors";

describe("scrub", () => {
  it("removes the URL and its password, raw or percent-encoded, from a foreign message", () => {
    const url = "amqp://ops:p%40ss@mq:5672/";
    expect(scrub(`Invalid URL: ${url}`, url)).toBe("Invalid URL: <url>");
    expect(scrub("login p@ss failed (p%40ss)", url)).toBe("login *** failed (***)");
    expect(scrub("nothing secret", "not a url")).toBe("nothing secret");
  });
});

describe("replyText", () => {
  it("finds the broker's words in amqplib's wrapper, else keeps the message", () => {
    expect(replyText(`Operation failed: QueueDeclare; 404 (NOT-FOUND) with message "NOT_FOUND - no queue 'q' in vhost '/'"`)).toBe(
      "NOT_FOUND - no queue 'q' in vhost '/'",
    );
    expect(replyText("connect ECONNREFUSED 127.0.0.1:1")).toBe("connect ECONNREFUSED 127.0.0.1:1");
  });
});
