import { describe, expect, it } from "vitest";
import { checkpointSignatureProblem, extendsCheckpoint, parseCheckpoint, signCheckpoint } from "./checkpoint";
import { auditKeyring } from "./keys";

const keys = auditKeyring("a".repeat(40));
const head = { sequence: "42", hash: "ab".repeat(32) };
const now = new Date("2026-12-01T12:00:00.000Z");

describe("audit checkpoints", () => {
  it("round-trips through its JSON text and verifies with the key it names", () => {
    const c = signCheckpoint(head, keys.current, now);
    expect(c).toMatchObject({
      format: "redrive-audit-checkpoint/1",
      sequence: 42,
      hash: head.hash,
      keyId: keys.current.id,
      at: now.toISOString(),
    });
    const parsed = parseCheckpoint(JSON.stringify(c, null, 2));
    expect(parsed).toEqual({ ok: true, checkpoint: c });
    expect(checkpointSignatureProblem(c, keys)).toBeNull();
  });

  it("refuses an altered checkpoint and one signed by a key the verifier does not hold", () => {
    const c = signCheckpoint(head, keys.current, now);
    expect(checkpointSignatureProblem({ ...c, sequence: 41 }, keys)).toMatch(/signature does not match/);
    expect(checkpointSignatureProblem({ ...c, hash: "cd".repeat(32) }, keys)).toMatch(/signature does not match/);
    expect(checkpointSignatureProblem(c, auditKeyring("b".repeat(40)))).toMatch(/does not hold/);
    // Same key id, other key: a forged id does not help.
    const other = auditKeyring("b".repeat(40));
    const forged = { ...signCheckpoint(head, other.current, now), keyId: keys.current.id };
    expect(checkpointSignatureProblem(forged, keys)).toMatch(/signature does not match/);
  });

  it("says what is wrong with a file that is not a checkpoint", () => {
    expect(parseCheckpoint("nope")).toMatchObject({ ok: false, problem: expect.stringMatching(/^not JSON/) });
    expect(parseCheckpoint("{}")).toMatchObject({ ok: false, problem: expect.stringContaining("format") });
    const c = signCheckpoint(head, keys.current, now);
    expect(parseCheckpoint(JSON.stringify({ ...c, sequence: -1 }))).toMatchObject({
      ok: false,
      problem: expect.stringContaining("sequence"),
    });
    expect(parseCheckpoint(JSON.stringify({ ...c, extra: 1 }))).toMatchObject({ ok: false, problem: expect.stringContaining("extra") });
  });

  it("knows whether the chain still extends it", () => {
    const c = signCheckpoint(head, keys.current, now);
    expect(extendsCheckpoint(c, { sequence: "50", hash: "ff".repeat(32) }, head.hash)).toBeNull();
    expect(extendsCheckpoint(c, head, head.hash)).toBeNull();
    expect(extendsCheckpoint(c, { sequence: "40", hash: "ee".repeat(32) }, undefined)).toMatch(
      /ends at event 40 .* taken at event 42: events were cut/,
    );
    expect(extendsCheckpoint(c, { sequence: "50", hash: "ff".repeat(32) }, "cd".repeat(32))).toMatch(/rewritten at or before it/);
    expect(extendsCheckpoint(c, { sequence: "50", hash: "ff".repeat(32) }, undefined)).toMatch(/not in the chain any more/);
  });
});
