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

  it("refuses what fetch would refuse at send time: credentials in the URL, header values beyond Latin-1", () => {
    for (const url of ["http://user:pass@127.0.0.1:9/x", "https://user@sink.example/x", "http://:pass@127.0.0.1:9/x"]) {
      expect(issuesOf({ ...base, sink: { type: "http", url } })).toEqual([
        { path: "sink.url", message: "must not contain a user name or password (fetch refuses them; send credentials in a header)" },
      ]);
    }
    for (const value of ["Bearer \u20ac", "caf\u00e9 \ud83d\ude00", "\u0100"]) {
      expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { Authorization: value } } })).toEqual([
        { path: "sink.headers.Authorization", message: "must hold only Latin-1 characters (U+0000–U+00FF); fetch refuses others" },
      ]);
    }
    expect(issuesOf({ ...base, sink: { type: "http", url: "http://127.0.0.1:9/x", headers: { "X-Name": "caf\u00e9 \u00ff" } } })).toEqual(
      [],
    );
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
