import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";

// Every JSON answer of the API gets one last masking pass (defineRoute, lib/api/handler.ts: maskAnswer) unless the
// route says it must leave as written (clearAnswer: a password or token shown once, the API's own description). A
// route or module that builds a Response itself goes past that pass: each such place is named here with where its
// masking happens instead, and a new one fails until it is.

const HAND_BUILT = new Map([
  ["lib/api/handler.ts", "the pass itself: masked answers, and error answers through the same maskAnswer"],
  ["lib/api/off-thread-reads.ts", "masked on the thread, with the rules the route hands it"],
  ["lib/api/ingest-response.ts", "streamed: each record's answer through maskAnswer as it is written"],
  ["app/api/export/route.ts", "a streamed file: the export's own masking (lib/forensics/export), unmask audited"],
  ["app/api/metrics/route.ts", "Prometheus text: counts by status, kind and source name, no record data"],
]);

const BUILDS_RESPONSE = /\bResponse\.json\(|\bnew Response\(/;

function files(dir: string): string[] {
  return readdirSync(join(process.cwd(), dir), { recursive: true, encoding: "utf8" })
    .map((f) => `${dir}/${f.split(sep).join("/")}`)
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
}

describe("API answers pass the masking seam", () => {
  const building = [...files("app/api"), ...files("lib")].filter((f) => BUILDS_RESPONSE.test(readFileSync(f, "utf8")));

  it("builds a Response by hand only where masking is done otherwise (named with where)", () => {
    expect(building.filter((f) => !HAND_BUILT.has(f))).toEqual([]);
  });

  it("names no place that no longer builds one", () => {
    expect([...HAND_BUILT.keys()].filter((f) => !building.includes(f))).toEqual([]);
  });
});
