import { describe, expect, it } from "vitest";
import { CreateBatchBody } from "@/lib/replay/batch/batch-schemas";
import { draftOf, pickedSink, replayOf, type Draft } from "./rule-draft";

// The rule editor's standing replay: a sink picked and filled in field by field, as the replay batch form does,
// sends the same `replay: {sink, …}` body the API took when the sink's settings were typed as JSON.

const draft = (patch: Partial<Draft>): Draft => ({ ...draftOf(null), source: "parcels", ...patch });

describe("the rule editor's standing replay", () => {
  it("sends a sink without settings as its type alone", () => {
    expect(replayOf(draft({ replaySink: "ledger", replayRate: "5" }))).toEqual({
      ok: true,
      replay: { sink: { type: "ledger" }, ratePerSecond: 5 },
    });
    expect(replayOf(draft({ replaySink: "origin" }))).toMatchObject({ ok: true, replay: { sink: { type: "origin" } } });
  });

  it("sends the HTTP sink's fields with their defaults, and the canary", () => {
    const d = draft({ replaySink: "http", canaryCount: "20", canaryPct: "10" });
    const typed = { ...d, sinkInputs: { ...d.sinkInputs, "http.url": "https://down.example/in", "http.headers": "X-Team: gis" } };
    expect(replayOf(typed)).toEqual({
      ok: true,
      replay: {
        sink: { type: "http", url: "https://down.example/in", headers: { "X-Team": "gis" }, timeoutMs: 10_000, concurrency: 4 },
        ratePerSecond: 10,
        canary: { count: 20, maxFailureRate: 0.1 },
      },
    });
  });

  it("words a sink's problems as the replay batch form does", () => {
    const d = draft({ replaySink: "http" });
    const bad = { ...d, sinkInputs: { ...d.sinkInputs, "http.url": "not a url", "http.headers": "no colon" } };
    const result = replayOf(bad);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    // The batch form: its field problems, then `${path}: ${message}` of CreateBatchBody's sink issues.
    const batch = CreateBatchBody.safeParse({
      filter: {},
      sink: { type: "http", url: "not a url", timeoutMs: 10_000, concurrency: 4 },
      ratePerSecond: 1,
    });
    const batchSinkIssues = (batch.error?.issues ?? []).filter((i) => i.path[0] === "sink").map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(batchSinkIssues.length).toBeGreaterThan(0);
    expect(problems).toEqual(['sink.headers: line 1 is not "Name: value"', ...batchSinkIssues]);
  });

  it("names a missing PostGIS table and a rate that is not above 0", () => {
    const d = draft({ replaySink: "postgis", replayRate: "0" });
    const typed = { ...d, sinkInputs: { ...d.sinkInputs, "postgis.url": "postgresql://w:p@db:5432/gis" } };
    const result = replayOf(typed);
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems.some((p) => p.startsWith("sink.table: "))).toBe(true);
    expect(problems.some((p) => p.startsWith("replay.ratePerSecond: "))).toBe(true);
  });

  it("keeps the version's replay, drops it for another action, and picks no sink then", () => {
    expect(replayOf(draft({ replaySink: "keep" }))).toEqual({ ok: true, replay: undefined });
    expect(replayOf(draft({ replaySink: "http", action: "leave" }))).toEqual({ ok: true, replay: null });
    expect(pickedSink(draft({ replaySink: "keep" }))).toBeNull();
    expect(pickedSink(draft({ replaySink: "http", action: "quarantine" }))).toBeNull();
    expect(pickedSink(draft({ replaySink: "postgis" }))).toBe("postgis");
  });
});
