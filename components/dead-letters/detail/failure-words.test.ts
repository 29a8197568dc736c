import { describe, expect, it } from "vitest";
import { failedAgainAfterReplay, howItFailed } from "./failure-words";

const f = (attempt: number, origin: string, batchId: string | null = null, alsoSentBy: string | null = null) => ({
  attempt,
  at: "2026-12-06T10:00:00.000Z",
  reason: `reason ${attempt}`,
  origin,
  batchId,
  alsoSentBy,
});

describe("the record page's words for its failures", () => {
  it("tells a failure after replay from a failed replay item and from another sender's re-send", () => {
    expect(howItFailed(f(1, "ingest"))).toBe("sent over HTTP");
    expect(howItFailed(f(2, "replay", "4"))).toBe("replay: dropped or gave up (batch 4)");
    expect(howItFailed(f(3, "pull", "7"))).toBe("failed again after replay in batch #7 (pulled from the broker)");
    expect(howItFailed(f(4, "ingest", null, "b@producer.local"))).toBe(
      "the same key was also sent by b@producer.local (sent over HTTP); the record was left as it is",
    );
  });

  it("names the latest failure after replay while the record is back in triage", () => {
    const failures = [f(1, "pull"), f(2, "pull", "7"), f(3, "ingest", null, "b@producer.local")];
    expect(failedAgainAfterReplay({ status: "pending", failures })?.batchId).toBe("7");
    // replayed again since: nothing to say at the top
    expect(failedAgainAfterReplay({ status: "replayed", failures })).toBeNull();
    // a later ordinary re-send is the latest failure
    expect(failedAgainAfterReplay({ status: "pending", failures: [...failures, f(4, "pull")] })).toBeNull();
    expect(failedAgainAfterReplay({ status: "pending", failures: [f(1, "ingest")] })).toBeNull();
  });
});
