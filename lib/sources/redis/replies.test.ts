import { describe, expect, it } from "vitest";
import { claimReply, integerReply, readGroupEntries, UnexpectedReplyError } from "./replies";

const b = (s: string) => Buffer.from(s);

describe("replies", () => {
  it("reads XREADGROUP's streams, including an entry that is gone", () => {
    const reply = [
      {
        name: b("dlq"),
        messages: [
          { id: b("1-0"), message: [b("body"), b("x")] },
          { id: b("2-0"), message: null },
        ],
      },
    ];
    expect(readGroupEntries(reply)).toEqual([
      { id: "1-0", fields: [b("body"), b("x")] },
      { id: "2-0", fields: null },
    ]);
    expect(readGroupEntries(null)).toEqual([]);
  });

  it("reads the claim script's reply", () => {
    expect(claimReply([[[b("1-0"), [b("body"), b("x")]]], [b("2-0")]])).toEqual({
      claimed: [{ id: "1-0", fields: [b("body"), b("x")] }],
      gone: ["2-0"],
    });
    expect(claimReply([[], []])).toEqual({ claimed: [], gone: [] });
  });

  it("refuses shapes it does not know", () => {
    expect(() => claimReply([1])).toThrow(UnexpectedReplyError);
    expect(() => readGroupEntries([{ name: "x" }])).toThrow(UnexpectedReplyError);
    expect(() => readGroupEntries([{ messages: [{ id: b("1-0"), message: [b("odd")] }] }])).toThrow(/flat field\/value list/);
    expect(() => integerReply("1", "x")).toThrow(UnexpectedReplyError);
  });
});
