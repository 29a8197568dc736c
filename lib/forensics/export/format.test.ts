import { describe, expect, it } from "vitest";
import { csvCell } from "./format";

describe("csvCell", () => {
  it("puts an apostrophe before text a spreadsheet would run as a formula", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"]) expect(csvCell(text)).toMatch(/^"?'/);
  });

  it("also when white space or invisible characters come first (spreadsheets skip them)", () => {
    const lead = [
      " ",
      "  ",
      "\n",
      "\r\n",
      "\u000b",
      "\f",
      "\u0085",
      "\u00a0",
      "\u1680",
      "\u2003",
      "\u2028",
      "\u3000",
      "\u200b",
      "\u200e",
      "\u2060",
      "\ufeff",
      "\u00ad",
      " \u200b\u00a0",
    ];
    for (const before of lead) {
      for (const start of ["=", "+", "-", "@"]) {
        const cell = csvCell(`${before}${start}1+1`);
        expect(cell, JSON.stringify(before + start)).toMatch(/^"?'/);
      }
    }
    expect(csvCell(" \tx")).toMatch(/^"?'/);
  });

  it("leaves other text, numbers and null alone, quoting per RFC 4180", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell(" plain")).toBe(" plain");
    expect(csvCell("\u200bplain")).toBe("\u200bplain");
    expect(csvCell("a=1")).toBe("a=1");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell(' "=1"')).toBe('" ""=1"""');
    expect(csvCell(" =1,2")).toBe(`"' =1,2"`);
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(null)).toBe("");
  });
});
