import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { auditHash, GENESIS_HASH, verifyChain, type AuditContent, type StoredAuditEvent } from "./chain";

function content(i: number): AuditContent {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    actorId: "u1",
    actorEmail: "a@x",
    actorRole: "admin",
    action: "user.created",
    targetType: "user",
    targetId: `t${i}`,
    before: null,
    after: { n: i, nested: { b: 1, a: [1, 2] } },
    diff: null,
    reason: null,
    requestId: null,
  };
}

function chain(n: number): StoredAuditEvent[] {
  const out: StoredAuditEvent[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const c = content(i);
    const hash = auditHash(prev, c);
    out.push({ ...c, id: String(i), prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

describe("audit hash chain", () => {
  it("hashes exactly the canonical JSON of the whole content with prevHash, as events already stored were hashed", () => {
    const contents: AuditContent[] = [
      content(1),
      { ...content(2), actorId: null, actorEmail: null, actorRole: null, targetId: null, after: null },
      {
        ...content(3),
        action: "dead_letter.edited",
        before: { é: "ü\u2028", "\ud83d\ude00": [1e21, 0.1, -0, 1e-7] },
        after: { z: { y: null, x: true } },
        diff: [{ op: "replace", path: "/a~1b", value: "<img src=x>" }],
        reason: 'typo "quoted"\n',
        requestId: "req-1",
      },
    ];
    for (const c of contents) {
      const prevHash = createHash("sha256").update(c.at).digest("hex");
      const whole = canonicalize({ ...c, prevHash }) as string;
      expect(auditHash(prevHash, c)).toBe(createHash("sha256").update(whole).digest("hex"));
    }
  });

  it("verifies events as read back from the table (id and hash present, jsonb key order lost)", () => {
    const events = chain(5).map((e) => ({ ...e, after: { nested: { a: [1, 2], b: 1 }, n: (e.after as { n: number }).n } }));
    expect(verifyChain(events)).toBeNull();
  });

  it("finds a changed event", () => {
    const events = chain(5);
    events[2] = { ...events[2]!, actorRole: "supervisor" };
    expect(verifyChain(events)).toMatchObject({ id: "3", problem: expect.stringContaining("content does not match") });
  });

  it("finds a removed event at the next one", () => {
    const events = chain(5);
    events.splice(1, 1);
    expect(verifyChain(events)).toMatchObject({ id: "3", problem: expect.stringContaining("prev_hash") });
  });

  it("continues from a given hash (batched verification)", () => {
    const events = chain(6);
    expect(verifyChain(events.slice(0, 3))).toBeNull();
    expect(verifyChain(events.slice(3), events[2]!.hash)).toBeNull();
    expect(verifyChain(events.slice(3))).toMatchObject({ id: "4" });
  });
});
