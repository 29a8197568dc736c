import { describe, expect, it } from "vitest";
import { UNPACED_PAGE_SPAN_MS } from "../pacing/gcra";
import { usesLockedPages } from "./locked-page";

describe("usesLockedPages", () => {
  const ledger = { mode: "in-transaction" as const };
  it("takes the one-transaction path for the ledger when a page's slots span at most UNPACED_PAGE_SPAN_MS", () => {
    expect(usesLockedPages({ sink: ledger, ratePerSecond: 1_000_000, pageSize: 500 })).toBe(true);
    expect(usesLockedPages({ sink: ledger, ratePerSecond: (500 * 1000) / UNPACED_PAGE_SPAN_MS, pageSize: 500 })).toBe(true);
  });
  it("leases paced pages (their slots span longer) and every page of a remote sink", () => {
    expect(usesLockedPages({ sink: ledger, ratePerSecond: 1000, pageSize: 500 })).toBe(false);
    expect(usesLockedPages({ sink: ledger, ratePerSecond: (500 * 1000) / UNPACED_PAGE_SPAN_MS - 1, pageSize: 500 })).toBe(false);
    expect(usesLockedPages({ sink: { mode: "remote" }, ratePerSecond: 1_000_000, pageSize: 500 })).toBe(false);
  });
});
