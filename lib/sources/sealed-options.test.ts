import { beforeAll, describe, expect, it } from "vitest";

describe("sealed source options", () => {
  let mod: typeof import("./sealed-options");
  beforeAll(async () => {
    process.env.REDRIVE_SECRET_KEY = "unit-sealing-key-0123456789abcdefghijklmnopqrstuvwxyz";
    mod = await import("./sealed-options");
  });

  const queue = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq?X-Amz-Signature=abc123";

  it("keeps a URL option that an edit sends back as it was shown, and takes a new one", () => {
    const stored = mod.sealOptions("sqs", { sourceQueueUrl: queue, waitSeconds: 1 });
    const shown = mod.shownOptions("sqs", stored);
    expect(shown.sourceQueueUrl).not.toContain("abc123");
    const kept = mod.keepShownSealed("sqs", stored, { ...shown, waitSeconds: 5 });
    expect(mod.openOptions("sqs", mod.sealOptions("sqs", kept))).toEqual({ sourceQueueUrl: queue, waitSeconds: 5 });
    const other = "https://sqs.eu-west-1.amazonaws.com/123456789012/other-dlq";
    const replaced = mod.keepShownSealed("sqs", stored, { ...shown, sourceQueueUrl: other });
    expect(mod.openOptions("sqs", mod.sealOptions("sqs", replaced)).sourceQueueUrl).toBe(other);
  });
});
