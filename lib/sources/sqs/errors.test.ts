import { describe, expect, it } from "vitest";
import { parseSqsUrl } from "./options";
import { sourceError } from "./errors";

const parsed = parseSqsUrl("http://10.0.0.7:9324/000000000000/orders-dlq");
if (!parsed.ok) throw new Error(parsed.message);
const queue = parsed.queue;

describe("the SQS connector's errors", () => {
  it("do not echo an answer that is not SQS's (an HTML page behind the endpoint)", () => {
    // What @aws-sdk/client-sqs rejects with when the endpoint answers with a web page.
    const html = Object.assign(
      new SyntaxError(
        "Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.",
      ),
      { $metadata: { httpStatusCode: 200 } },
    );
    const err = sourceError(html, queue, "receive");
    expect(err.message).toBe(
      "receive on http://10.0.0.7:9324/000000000000/orders-dlq failed: the endpoint answered with something other than SQS (HTTP 200)",
    );
    expect(err.message).not.toContain("DOCTYPE");
  });

  it("keep SQS's own refusal, which names what to fix", () => {
    const denied = Object.assign(new Error("The security token included in the request is invalid."), { name: "InvalidClientTokenId" });
    expect(sourceError(denied, queue, "receive")).toMatchObject({
      code: "auth_failed",
      message: expect.stringContaining("security token"),
    });
  });
});
