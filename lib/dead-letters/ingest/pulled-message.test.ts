import { describe, expect, it } from "vitest";
import { getGeos } from "../../spatial/geos";
import { oversizeProblem, preparePulled, type PulledBody } from "./pulled-message";

const message = (body: Buffer): PulledBody => ({
  body,
  kind: "afc",
  sourceName: "taps-dlq",
  sourceType: "rabbitmq",
  deathReason: "rejected",
  messageId: "m-1",
  publishedAt: null,
  origin: { position: "p-1" },
});

describe("preparePulled", () => {
  it("keeps a body over the record limit as poison without the body, its size in the reason, hashed as pulled", async () => {
    const body = Buffer.alloc(2048, "x");
    const [big, small] = preparePulled([message(body), message(Buffer.from('{"event_id":"e-1"}'))], new Date(), await getGeos(), {}, 1024);
    expect(big!.unreadable).toBe(true);
    expect(big!.record.failureReason).toContain(oversizeProblem(2048, 1024));
    expect(big!.record.row).not.toContain("xxxx");
    expect(big!.bodyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(small!.unreadable).toBe(false);
    expect(small!.index).toBe(1);
  });

  it("names the size in megabytes and bytes", () => {
    expect(oversizeProblem(20 * 1024 * 1024)).toBe(
      "the message is 20.0 MB (20971520 bytes), larger than the 16.0 MB a record may be: its body was not kept",
    );
  });
});
