import { describe, expect, it } from "vitest";
import { endpointOf, parseSqsUrl, regionOf, sqsOptionsSchema } from "./options";

describe("parseSqsUrl", () => {
  it("reads an AWS queue URL: name, FIFO, the host's region, no credentials (the AWS chain)", () => {
    const r = parseSqsUrl("https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq.fifo");
    expect(r).toEqual({
      ok: true,
      queue: {
        queueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq.fifo",
        name: "orders-dlq.fifo",
        fifo: true,
        hostRegion: "eu-west-1",
        credentials: null,
        display: "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq.fifo",
      },
    });
  });

  it("takes an access key from the userinfo, %-decoded, and keeps it out of the queue URL and the display", () => {
    const r = parseSqsUrl("http://AKIDEXAMPLE:wJal%2FrXUt%2BnF@127.0.0.1:4566/000000000000/dlq");
    if (!r.ok) throw new Error(r.message);
    expect(r.queue.credentials).toEqual({ accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJal/rXUt+nF" });
    expect(r.queue.queueUrl).toBe("http://127.0.0.1:4566/000000000000/dlq");
    expect(r.queue.display).not.toContain("wJal");
    expect(r.queue.hostRegion).toBeNull();
  });

  it.each([
    ["not a url", /not a valid URL/],
    ["amqp://host/1/q", /https:\/\//],
    ["https://sqs.us-east-1.amazonaws.com/q", /account and the queue/],
    ["https://sqs.us-east-1.amazonaws.com/1/q?x=1", /query/],
    ["https://sqs.us-east-1.amazonaws.com/1/bad%20name", /queue name/],
    ["https://AKID@sqs.us-east-1.amazonaws.com/1/q", /half an access key/],
  ])("refuses %s, saying why", (url, why) => {
    const r = parseSqsUrl(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(why);
  });

  it("never repeats the secret in a refusal", () => {
    const r = parseSqsUrl("https://AKID:s3cr%ZZet@sqs.us-east-1.amazonaws.com/1/q");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).not.toContain("s3cr");
  });
});

describe("region and endpoint", () => {
  const aws = parseSqsUrl("https://sqs.ap-southeast-2.amazonaws.com/1/q");
  const local = parseSqsUrl("http://localhost:9324/000000000000/q");
  if (!aws.ok || !local.ok) throw new Error("fixtures");

  it("signs for the option's region, else the host's, else us-east-1", () => {
    expect(regionOf(aws.queue, {})).toBe("ap-southeast-2");
    expect(regionOf(aws.queue, { region: "eu-west-1" })).toBe("eu-west-1");
    expect(regionOf(local.queue, {})).toBe("us-east-1");
  });

  it("sends to the endpoint option, else the queue URL's origin", () => {
    expect(endpointOf(local.queue, {})).toBe("http://localhost:9324");
    expect(endpointOf(aws.queue, { endpoint: "http://moto:5000" })).toBe("http://moto:5000");
  });
});

describe("sqsOptionsSchema", () => {
  it("defaults the visibility timeout and accepts the optional fields", () => {
    expect(sqsOptionsSchema.parse({})).toEqual({ visibilityTimeoutSeconds: 60 });
    expect(
      sqsOptionsSchema.parse({ region: "us-gov-west-1", sourceQueueUrl: "https://sqs.us-gov-west-1.amazonaws.com/1/q" }),
    ).toMatchObject({
      region: "us-gov-west-1",
    });
  });

  it.each([
    [{ region: "Europe" }, "region"],
    [{ endpoint: "ftp://x" }, "endpoint"],
    [{ sourceQueueUrl: "queue" }, "sourceQueueUrl"],
    [{ visibilityTimeoutSeconds: 0 }, "visibilityTimeoutSeconds"],
    [{ queue: "x" }, ""],
  ])("refuses %j naming the field", (options, path) => {
    const r = sqsOptionsSchema.safeParse(options);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0]?.path.join(".") ?? "").toBe(path);
  });
});
