import { describe, expect, it } from "vitest";
import { zodIssues } from "../../errors/app-error";
import { CreateBatchBody } from "./batch-schemas";

const base = { ids: ["1"], ratePerSecond: 10 };
const issuesOf = (body: unknown) => {
  const r = CreateBatchBody.safeParse(body);
  return r.success ? [] : zodIssues(r.error);
};

describe("CreateBatchBody", () => {
  it("takes an HTTP sink with custom headers", () => {
    expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { "X-Team": "geo" } } })).toEqual([]);
  });

  it("refuses header values that fetch would refuse at send time (CR, LF, NUL), naming the header", () => {
    for (const value of ["a\r\nX-Evil: 1", "a\nb", "a\u0000b"]) {
      expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { "X-A": value } } })).toEqual([
        { path: "sink.headers.X-A", message: "must not contain CR, LF or NUL" },
      ]);
    }
  });

  it("refuses reserved and malformed header names", () => {
    expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { "Idempotency-Key": "k" } } })[0]?.path).toBe(
      "sink.headers",
    );
    expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { "Bad Name": "v" } } })[0]?.path).toBe(
      "sink.headers.Bad Name",
    );
  });

  it("refuses an unknown key inside the filter by its path", () => {
    expect(issuesOf({ filter: { status: ["approved"], sourcee: "x" }, sink: { type: "ledger" }, ratePerSecond: 5 })).toEqual([
      { path: "filter.sourcee", message: "is not a recognized field" },
    ]);
  });
});
