import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "./forensics-schemas";
import { noteRecordFateInEndedBatches, summarize } from "./timeline-summary";

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

describe("timeline summaries of notes", () => {
  it("quotes the note's text (stored masked in the audit event) after its author", () => {
    const e = {
      ...event("dead_letter.note_added"),
      kind: "note" as const,
      after: { noteId: "3", text: "card ••••1111, @ann look", mentions: [] },
    };
    expect(summarize(e, "9")).toBe("Note by s@x.local (supervisor): card ••••1111, @ann look");
  });
});

describe("timeline summaries of a settled key", () => {
  const settled = (origin: string, batchId: string | null = "4"): TimelineEvent => ({
    ...event("ledger.settled"),
    kind: "settlement",
    actor: { id: null, email: null, role: null },
    after: { idempotencyKey: "k", batchId, itemId: "1", deadLetterId: "9", origin },
  });

  it("names the sink that settled it, in that sink's own words", () => {
    expect(summarize(settled("http"), null)).toBe("Settled in the ledger by replay batch 4 (HTTP sink)");
    expect(summarize(settled("postgis"), null)).toBe("Settled in the ledger by replay batch 4 (PostGIS sink)");
    expect(summarize(settled("origin"), null)).toBe("Settled in the ledger by replay batch 4 (origin sink)");
    expect(summarize(settled("replay"), null)).toBe("Settled in the ledger by replay batch 4");
  });

  it("says an imported key came from an external ledger", () => {
    expect(summarize(settled("import", null), null)).toBe("Settled key found in the ledger (imported from an external ledger)");
  });
});

describe("a record's fate in a batch that ended after its turn", () => {
  const at = (action: string, after: TimelineEvent["after"] = null): TimelineEvent => ({ ...event(action), after, summary: action });
  it("says the record was applied before the cancel, not that it was cancelled", () => {
    const cancel = at("replay_batch.cancel");
    noteRecordFateInEndedBatches([
      { event: at("replay_batch.approve"), batchId: "1" },
      { event: at("replay.applied", { batchId: "1" }), batchId: "1" },
      { event: cancel, batchId: "1" },
    ]);
    expect(cancel.summary).toBe(
      "replay_batch.cancel — after this record was applied in it (the batch was cancelled later; the record stays applied)",
    );
  });
  it("says a record whose batch was cancelled before its turn was not sent", () => {
    const cancel = at("replay_batch.cancel");
    const other = at("replay_batch.cancel");
    noteRecordFateInEndedBatches([
      { event: at("replay.applied", { batchId: "2" }), batchId: "2" },
      { event: cancel, batchId: "1" },
      { event: other, batchId: "3" },
    ]);
    expect(cancel.summary).toBe("replay_batch.cancel — this record was not sent in it");
  });
  it("leaves other batch events as they are", () => {
    const pause = at("replay_batch.pause");
    noteRecordFateInEndedBatches([
      { event: at("replay.applied"), batchId: "1" },
      { event: pause, batchId: "1" },
    ]);
    expect(pause.summary).toBe("replay_batch.pause");
  });
});

describe("timeline summary of a pulled record", () => {
  const pulled: TimelineEvent = {
    ...event("dead_letter.pulled"),
    kind: "capture",
    actor: { id: "u", email: "admin@x.local", role: "admin" },
    after: { source: "mapper", failureReason: "dead-lettered by rabbitmq: rejected", failureClass: "transient" },
  };

  it("names the broker source it came through, and the producer's source when it differs", () => {
    expect(summarize(pulled, "5", { originSource: "orders-rmq" })).toBe(
      "Pulled from the broker source orders-rmq (source mapper) by admin@x.local (admin): dead-lettered by rabbitmq: rejected (class transient)",
    );
    expect(
      summarize({ ...pulled, after: { ...(pulled.after as object), source: "orders-rmq" } }, "5", { originSource: "orders-rmq" }),
    ).toBe("Pulled from the broker source orders-rmq by admin@x.local (admin): dead-lettered by rabbitmq: rejected (class transient)");
  });
});

describe("timeline summaries of failures after a replay and of other senders' re-sends", () => {
  it("says the record failed again after replay in its batch and is back in triage", () => {
    const e = {
      ...event("dead_letter.failed_after_replay"),
      kind: "failure" as const,
      actor: { id: null, email: "puller:w1", role: "system" },
      after: { failureCount: 2, failureClass: "transient", status: "pending", reason: "rejected by consumer", replayBatchId: "12" },
    };
    expect(summarize(e, "9")).toBe(
      "Failed again after replay in batch #12 (failure #2) by puller:w1 (system): rejected by consumer — back in triage",
    );
    expect(summarize({ ...e, after: { ...e.after, status: "quarantined" } }, "9")).toContain("now poison, in quarantine");
  });
  it("names the other sender of the same key and says the record was left as it is", () => {
    const e = {
      ...event("dead_letter.key_sent_by_other"),
      kind: "failure" as const,
      actor: { id: "b", email: "b@producer.local", role: "producer" },
      after: { failureCount: 2, failureClass: "transient", status: "approved", reason: "HTTP 500" },
    };
    expect(summarize(e, "9")).toBe("The same key was also sent by b@producer.local (producer): HTTP 500 — the record was left as it is");
  });
});
