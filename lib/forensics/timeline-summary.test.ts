import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "./forensics-schemas";
import { summarize } from "./timeline-summary";

const event = (action: string): TimelineEvent => ({
  id: "1",
  at: "2026-11-30T10:00:00.000Z",
  kind: "batch",
  action,
  summary: "",
  actor: { id: "u", email: "s@x.local", role: "supervisor" },
  reason: null,
  before: null,
  after: null,
  diff: null,
  hash: null,
});

describe("timeline summaries of batch events", () => {
  it("writes the past tense the rest of the product uses", () => {
    expect(summarize(event("replay_batch.cancel"), "7")).toBe("Replay batch 7 cancelled by s@x.local (supervisor)");
    expect(summarize(event("replay_batch.pause"), "7")).toBe("Replay batch 7 paused by s@x.local (supervisor)");
    expect(summarize(event("replay_batch.start"), "7")).toBe("Replay batch 7 started by s@x.local (supervisor)");
  });
});
