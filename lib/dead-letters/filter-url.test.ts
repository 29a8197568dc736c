import { describe, expect, it } from "vitest";
import { boundLabel, dayOf, dayRange, filterFromParams, filterKey, filterToParams, searchError, toggleValue } from "./filter-url";

describe("filter ↔ URL", () => {
  it("round-trips every filter", () => {
    const url =
      "kind=spatial,afc&status=pending&class=poison&source=gates.metro&origin=orders-dlq&reason=tap_timestamp%3A+Invalid+datetime" +
      "&from=2026-11-05T00:00:00.000Z&to=2026-11-06T23:59:59.999Z&q=abc12345&bbox=2.2,48.7,2.5,48.95";
    const { filter, error } = filterFromParams(new URLSearchParams(url));
    expect(error).toBeNull();
    expect(filter).toMatchObject({
      kind: ["spatial", "afc"],
      status: ["pending"],
      origin: "orders-dlq",
      reason: "tap_timestamp: Invalid datetime",
      bbox: [2.2, 48.7, 2.5, 48.95],
    });
    expect(filterFromParams(filterToParams(filter)).filter).toEqual(filter);
  });

  it("ignores unrelated parameters and reports invalid ones", () => {
    expect(filterFromParams(new URLSearchParams("cursor=x&map=0")).filter).toEqual({});
    const bad = filterFromParams(new URLSearchParams("status=nope"));
    expect(bad.filter).toEqual({});
    expect(bad.error).toContain("status");
  });

  it("keeps the valid fields when one is invalid, and drops a backwards range as a whole", () => {
    const bad = filterFromParams(new URLSearchParams("status=nope&source=metro-gtfs"));
    expect(bad.filter).toEqual({ source: ["metro-gtfs"] });
    const backwards = filterFromParams(
      new URLSearchParams("status=pending&source=metro-gtfs&from=2026-11-25T00:00:00Z&to=2026-11-22T23:59:59Z"),
    );
    expect(backwards.filter).toEqual({ status: ["pending"], source: ["metro-gtfs"] });
    expect(backwards.error).toBe("from: must not be later than to");
  });

  it("keeps a source's name as one value (not split on commas like the facets) and refuses an overlong one", () => {
    expect(filterToParams({ origin: "orders-dlq" }).toString()).toBe("origin=orders-dlq");
    expect(filterFromParams(new URLSearchParams("origin=a,b")).filter).toEqual({ origin: "a,b" });
    const long = filterFromParams(new URLSearchParams(`status=pending&origin=${"x".repeat(65)}`));
    expect(long.filter).toEqual({ status: ["pending"] });
    expect(long.error).toContain("origin");
  });

  it("gives equal filters equal keys whatever the spelling", () => {
    const a = filterFromParams(new URLSearchParams("status=pending&kind=afc")).filter;
    const b = filterFromParams(new URLSearchParams("kind=afc&status=pending")).filter;
    expect(filterKey(a)).toBe(filterKey(b));
  });

  it("toggles facet values and drops empty lists", () => {
    const f = toggleValue({}, "status", "pending");
    expect(f.status).toEqual(["pending"]);
    expect(toggleValue(toggleValue(f, "status", "approved"), "status", "pending").status).toEqual(["approved"]);
    expect(toggleValue(f, "status", "pending").status).toBeUndefined();
  });

  it("turns date inputs into whole UTC days", () => {
    const r = dayRange("2026-11-05", "2026-11-06");
    expect(r.from).toBe("2026-11-05T00:00:00.000000Z");
    expect(r.to).toBe("2026-11-06T23:59:59.999999Z");
    expect(dayRange("", "garbage")).toEqual({ from: undefined, to: undefined });
    expect(dayOf(r.to)).toBe("2026-11-06");
  });
});

describe("the note filter in the URL", () => {
  it("round-trips after the search and before the viewport", () => {
    const { filter } = filterFromParams(new URLSearchParams("bbox=1,2,3,4&note=refund%20ok&q=abc"));
    expect(filter.note).toBe("refund ok");
    expect(filterToParams(filter).toString()).toBe("q=abc&note=refund+ok&bbox=1%2C2%2C3%2C4");
  });
});

describe("a time bound's chip", () => {
  it("shows the day for a whole day's edge, as the date inputs make it", () => {
    const { from, to } = dayRange("2026-11-20", "2026-11-22");
    expect(boundLabel(from ?? "", "from")).toBe("2026-11-20");
    expect(boundLabel(to ?? "", "to")).toBe("2026-11-22");
  });

  it("shows the instant to the second for any other bound", () => {
    expect(boundLabel("2026-11-20T08:15:00Z", "from")).toBe("2026-11-20 08:15:00 UTC");
    // The start of a day as an upper bound is not the whole day.
    expect(boundLabel("2026-11-20T00:00:00.000000Z", "to")).toBe("2026-11-20 00:00:00 UTC");
  });
});

describe("a search the list cannot read", () => {
  it("is given apart with its text, for the search box to keep it and say why", () => {
    const bad = filterFromParams(new URLSearchParams("q=card_pan%3A4111&status=pending"));
    expect(bad.filter).toEqual({ status: ["pending"] });
    expect(bad.refusedSearch).toEqual({ text: "card_pan:4111", message: expect.stringMatching(/"card_pan" holds masked card data/) });
    expect(bad.otherError).toBeNull();
    expect(bad.error).toContain("q:");
    const both = filterFromParams(new URLSearchParams("q=properties.sensor+%3D&status=nope"));
    expect(both.refusedSearch?.message).toMatch(/needs a value/);
    expect(both.otherError).toContain("status");
  });

  it("searchError: the API's rule for q, null for text it searches", () => {
    expect(searchError("card_pan:4111")).toMatch(/masked card data/);
    expect(searchError("name:")).toMatch(/needs a value/);
    expect(searchError("4111 1111 1111 1111")).toMatch(/holds a card number/);
    expect(searchError("rome-parcel-258")).toBeNull();
    expect(searchError("  ")).toBeNull();
  });
});
