import { describe, expect, it } from "vitest";
import type { ActiveRule } from "../../rules/rules";
import { ROW_COLUMNS } from "../store/prepare-row";
import { geometryDigest } from "../triage/approved-repair";
import { normalizeRecord } from "./normalize";

const star = {
  type: "Polygon",
  coordinates: [
    [0, 2, 4, 1, 3, 0].map((k) => [
      2.35 + 0.01 * Math.cos(Math.PI / 2 + (k * 2 * Math.PI) / 5),
      48.85 + 0.01 * Math.sin(Math.PI / 2 + (k * 2 * Math.PI) / 5),
    ]),
  ],
};
const spatial = (source: string) =>
  JSON.stringify({
    kind: "spatial",
    source,
    idempotency_key: `k-${source}`,
    observed_at: "2026-12-01T10:00:00Z",
    feature: { type: "Feature", id: "f", properties: {}, geometry: star },
  });
// A fare as text: the tap schema wants whole cents.
const afc =
  '{"kind":"afc","source":"gates.metro","raw_payload":{"event_id":"tap-1","device_id":"gate-01","fare_amount_cents":"2.50",' +
  '"tap_timestamp":"2026-11-02T18:10:11.901Z"}}';

const rule = (id: string, match: ActiveRule["match"], action: ActiveRule["action"] = { type: "approve" }): ActiveRule => ({
  id,
  name: `r${id}`,
  version: 1,
  match,
  action,
  approvers: [],
});
const RULES = {
  key: "db|1:1,2:1,3:1",
  rules: [
    rule("1", { source: "by-structure", repair: { method: "structure", maxAreaChange: 0.3 } }),
    rule("2", { source: "stored", repair: { maxAreaChange: 0.6 } }),
    rule("3", { kind: "afc", afcIssues: ["fare_amount_cents"] }, { type: "quarantine", reason: "fares" }),
  ],
};

async function factsOf(text: string, rules = RULES) {
  const n = await normalizeRecord({ index: 0, text }, new Date("2026-12-02T00:00:00Z"), { rules });
  if (!n.ok) throw new Error(JSON.stringify(n.errors));
  return n.record;
}

describe("arrivalFacts: what the active rules will ask at the store step, gathered where the record is normalized", () => {
  it("runs another repair (GEOS) only for a record a rule judges by it", async () => {
    const { facts } = await factsOf(spatial("by-structure"));
    expect(facts?.rulesKey).toBe(RULES.key);
    expect(facts?.analysis).toMatchObject({ method: "linework", policy: "accept", outcome: "repaired" });
    expect(facts?.repairs).toEqual([
      expect.objectContaining({
        method: "structure",
        policy: "accept",
        outcome: "repaired",
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(facts?.repairs?.[0]?.analysis.type_after).toBe("Polygon");
    expect(facts?.deliveredDigest).toBeUndefined();
  });

  it("digests the stored repair for an approving rule on the stored analysis", async () => {
    const record = await factsOf(spatial("stored"));
    expect(record.facts?.repairs).toBeUndefined();
    const row = record.row as string;
    // The repaired geometry is the row's repaired_geometry column (after analysis): its digest is the pin's.
    const repaired = JSON.parse(row.split("\t")[ROW_COLUMNS.indexOf("repaired_geometry")]!) as Parameters<typeof geometryDigest>[0];
    expect(record.facts?.deliveredDigest).toBe(geometryDigest(repaired));
  });

  it("computes nothing for a record no rule looks at, and no facts without rules", async () => {
    const { facts } = await factsOf(spatial("elsewhere"));
    expect(facts).toMatchObject({ rulesKey: RULES.key, failureClass: "transient", originSource: null });
    expect(facts?.repairs).toBeUndefined();
    expect(facts?.deliveredDigest).toBeUndefined();
    expect(facts?.afcIssues).toBeUndefined();
    expect((await factsOf(spatial("stored"), { key: "db|", rules: [] })).facts).toBeUndefined();
  });

  it("carries an AFC tap's issues for an issues rule", async () => {
    const { facts } = await factsOf(afc);
    expect(facts?.afcIssues?.map((i) => i.field)).toEqual(["fare_amount_cents"]);
  });
});
