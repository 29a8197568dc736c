import { describe, expect, it } from "vitest";
import { replayHeaders, unsendableHeader } from "./replay-headers";

describe("replayHeaders", () => {
  it("sends the recorded headers back, repeated ones repeated, and adds the key", () => {
    expect(replayHeaders({ "X-Trace": "abc", "X-Multi": ["1", "2"] }, "key-1")).toEqual([
      ["X-Trace", "abc"],
      ["X-Multi", "1"],
      ["X-Multi", "2"],
      ["Idempotency-Key", "key-1"],
    ]);
  });
  it("drops the server's Nats-* headers whatever their case", () => {
    const out = replayHeaders({ "Nats-Msg-Id": "m1", "nats-expected-stream": "S", "NATS-Rollup": "sub", "X-Natsy": "keep" }, "k");
    expect(out).toEqual([
      ["X-Natsy", "keep"],
      ["Idempotency-Key", "k"],
    ]);
  });
  it("replaces an Idempotency-Key from an earlier replay with this one", () => {
    expect(replayHeaders({ "idempotency-key": "old" }, "new")).toEqual([["Idempotency-Key", "new"]]);
  });
  it("writes non-string values (from another source type's origin) as text and skips nulls", () => {
    expect(replayHeaders({ n: 1, b: true, z: null, o: { base64: "AA==" } }, "k")).toEqual([
      ["n", "1"],
      ["b", "true"],
      ["o", '{"base64":"AA=="}'],
      ["Idempotency-Key", "k"],
    ]);
  });
});

describe("unsendableHeader", () => {
  it("accepts ordinary headers", () => {
    expect(unsendableHeader([["X-A", "v w"]])).toBeNull();
  });
  it.each([
    [[["X-A", "line\r\nInjected: 1"]], "CR or LF"],
    [[["Bad:Name", "v"]], "visible ASCII"],
    [[["Bad Name", "v"]], "visible ASCII"],
    [[["", "v"]], "visible ASCII"],
  ] as Array<[Array<[string, string]>, string]>)("refuses %j", (pairs, words) => {
    expect(unsendableHeader(pairs)).toContain(words);
  });
});
