import { describe, expect, it } from "vitest";
import { handlesOf, mentionHandles, mentionSegments } from "./mentions";

describe("mentionHandles", () => {
  it("finds each @handle once, lowercased, without a sentence's full stop", () => {
    expect(mentionHandles("@Ann please look, cc @bob.smith and @ann.")).toEqual(["ann", "bob.smith"]);
  });
  it("ignores e-mail addresses and a lone @", () => {
    expect(mentionHandles("mail ann@example.com @ or @@x")).toEqual([]);
  });
});

describe("handlesOf", () => {
  it("is the e-mail's local part and the name without spaces", () => {
    expect(handlesOf({ email: "Ann.Lee@x.io", name: "Ann Lee" })).toEqual(["ann.lee", "annlee"]);
    expect(handlesOf({ email: "bob@x.io", name: "bob" })).toEqual(["bob"]);
  });
});

describe("mentionSegments", () => {
  it("marks only known handles, keeping the rest as plain text", () => {
    expect(mentionSegments("hi @ann and @nobody.", new Set(["ann"]))).toEqual([
      { text: "hi ", mention: false },
      { text: "@ann", mention: true },
      { text: " and @nobody.", mention: false },
    ]);
  });
  it("keeps markup as text", () => {
    expect(mentionSegments("<b>@ann</b>", new Set(["ann"]))).toEqual([
      { text: "<b>", mention: false },
      { text: "@ann", mention: true },
      { text: "</b>", mention: false },
    ]);
  });
});
